"""Every CMSIS-NN kernel family the Cortex-M backend lowers: convolution, depthwise
convolution, a residual add, average and max pooling and a linear layer (seeded)."""

import torch


class CmsisMix(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pointwise = torch.nn.Conv2d(8, 8, 1)
        self.avg = torch.nn.AvgPool2d(2)
        self.max = torch.nn.MaxPool2d(2)
        self.linear = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        y = torch.relu(self.depthwise(x))
        x = self.pointwise(y) + x
        x = self.max(self.avg(x))
        return self.linear(torch.flatten(x, 1))


torch.manual_seed(40)
ModelUnderTest = CmsisMix().eval()
ModelInputs = (torch.rand(1, 3, 16, 16) * 2 - 1,)
