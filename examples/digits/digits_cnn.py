"""A small CNN for scikit-learn's bundled 8x8 digits (no download), trained when this file is
imported: seeded, single-threaded, a few seconds. `invoke evaluate --model
examples/digits/digits_cnn.py --data <dir>` takes it like any model file. Its data set is one
command (no training): `python examples/digits/digits_cnn.py <dir> [COUNT]` writes COUNT
(default 200) unseen samples there, one .npy input set per sample plus labels.txt, and prints
the evaluate command that takes them (write_digits() does the same from Python).

Samples 0..TRAIN-1 train the model; evaluation data comes from TRAIN on, calibration from
any other part of the data set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from sklearn.datasets import load_digits

SEED = 0
TRAIN = 1000          # the first 1000 of the 1797 images train; the rest are unseen
EPOCHS = 12
BATCH = 50


class DigitsCNN(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(16 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.conv1(x))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


def digits() -> tuple[np.ndarray, np.ndarray]:
    """(images as float32 [N,1,8,8] scaled to 0..1, int64 labels)."""
    data = load_digits()
    images = (data.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    return images, data.target.astype(np.int64)


def train() -> DigitsCNN:
    """The same weights every time: seeded init and shuffling, one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        generator = torch.Generator().manual_seed(SEED)
        torch.manual_seed(SEED)
        model = DigitsCNN()
        images, labels = digits()
        x, y = torch.from_numpy(images[:TRAIN]), torch.from_numpy(labels[:TRAIN])
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        for _ in range(EPOCHS):
            order = torch.randperm(TRAIN, generator=generator)
            for start in range(0, TRAIN, BATCH):
                batch = order[start:start + BATCH]
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x[batch]), y[batch])
                loss.backward()
                optimizer.step()
        return model.eval()
    finally:
        torch.set_num_threads(threads)


def write_digits(folder: Path, start: int, count: int) -> Path:
    """Samples start..start+count-1 as <index>.npy ([1,1,8,8] float32) plus labels.txt
    (`name label` lines); returns the folder."""
    images, labels = digits()
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for index in range(start, start + count):
        name = f"{index:04d}.npy"
        np.save(folder / name, images[index:index + 1])
        lines.append(f"{name} {labels[index]}")
    (folder / "labels.txt").write_text("\n".join(lines) + "\n")
    return folder


def unseen_count(text: str) -> int:
    """COUNT on the command line: 1 up to the number of samples the CNN never trained on."""
    unseen = len(digits()[1]) - TRAIN
    if not text.isdigit() or not 1 <= int(text) <= unseen:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to {unseen}")
    return int(text)


def main(argv: list[str]) -> None:
    """The command line: write the unseen samples as a data set and say how to evaluate it."""
    parser = argparse.ArgumentParser(
        prog=f"python {sys.argv[0]}",
        description="Write unseen digits (never trained on) as an invoke evaluate data set.")
    parser.add_argument("folder", type=Path, help="where the .npy files and labels.txt go")
    parser.add_argument("count", type=unseen_count, nargs="?", default=200, metavar="COUNT",
                        help="how many samples (default 200)")
    arguments = parser.parse_args(argv)
    folder = write_digits(arguments.folder, TRAIN, arguments.count)
    print(f"wrote {arguments.count} digits to {folder}; next: invoke evaluate --model "
          f"{sys.argv[0]} --target ethos-u85-128 --sim qemu --data {folder}")


if __name__ == "__main__":
    main(sys.argv[1:])
else:   # loaded as a model: the trained CNN and one unseen image as its example input
    ModelUnderTest = train()
    ModelInputs = (torch.from_numpy(digits()[0][TRAIN:TRAIN + 1]),)
