"""The square classifier's network (about 290k parameters, about 13 M multiply-adds per 48x48 crop).

Only ops OpenCV 4.6's dnn reads from ONNX opset 11: Conv, BatchNormalization (folded at export), Relu,
MaxPool, GlobalAveragePool, Flatten, Gemm. Small on purpose: trained on 2 shared CPU cores, and run on
81 squares (162 with the 180-degree trick) per frame.
"""

import torch.nn as nn


def _block(cin, cout, stride=1):
    return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


WIDTHS = (16, 32, 64, 64, 128, 128)   # v6 and before; the six conv layers' output channels
SMALL = (8, 16, 32, 32, 64, 128)      # about 4 M multiply-adds a crop, 2.8x faster in OpenCV's dnn


class SquareNet(nn.Module):
    def __init__(self, nclass=29, widths=WIDTHS):
        super().__init__()
        a, b, c, d, e, f = widths
        self.widths = tuple(widths)
        self.features = nn.Sequential(
            *_block(3, a), nn.MaxPool2d(2),             # 24x24
            *_block(a, b), nn.MaxPool2d(2),             # 12x12
            *_block(b, c), *_block(c, d), nn.MaxPool2d(2),  # 6x6
            *_block(d, e), nn.MaxPool2d(2),             # 3x3
            *_block(e, f), nn.AdaptiveAvgPool2d(1), nn.Flatten(1),
        )
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(f, nclass)

    def forward(self, x):  # x: N x 3 x 48 x 48, BGR / 255
        return self.fc(self.drop(self.features(x)))


def widths_of(state):
    """The six conv widths of a saved state dict (so a checkpoint loads without being told its size)."""
    return tuple(v.shape[0] for k, v in state.items() if k.startswith("features.") and k.endswith(".weight")
                 and v.dim() == 4)


def load(path):
    """A SquareNet of the right widths with the weights of the checkpoint at path."""
    import torch

    state = torch.load(path)
    m = SquareNet(widths=widths_of(state))
    m.load_state_dict(state)
    return m
