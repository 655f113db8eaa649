"""The host library keeps static state (working buffers, weight cache, observer): calls from
several threads (regress cells' write checks side by side; ctypes releases the GIL) enter it
one at a time. Checked with a stand-in library that records how many callers are inside."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from orchestrator.npu_model import execute


class CountingLibrary:
    """npu_model_invoke/observe that note the most callers inside invoke at once."""

    def __init__(self) -> None:
        self.inside = 0
        self.most = 0
        self.guard = threading.Lock()

    def npu_model_observe(self, *_args: Any) -> None:
        pass

    def npu_model_invoke(self, *_args: Any) -> int:
        with self.guard:
            self.inside += 1
            self.most = max(self.most, self.inside)
        time.sleep(0.02)
        with self.guard:
            self.inside -= 1
        return 0


def test_threads_enter_the_host_library_one_at_a_time():
    library = CountingLibrary()
    regions = [np.zeros(16, np.uint8) for _ in range(3)]
    command = np.zeros(4, np.uint32)

    def call() -> None:
        for _ in range(5):
            execute._invoke(library, execute.NpuConfig(), command, regions,
                            execute.ModelStatus(), None)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert library.most == 1
