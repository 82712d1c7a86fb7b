"""The square classifier's network (about 290k parameters, about 13 M multiply-adds per 48x48 crop).

Only ops OpenCV 4.6's dnn reads from ONNX opset 11: Conv, BatchNormalization (folded at export), Relu,
MaxPool, GlobalAveragePool, Flatten, Gemm. Small on purpose: trained on 2 shared CPU cores, and run on
81 squares (162 with the 180-degree trick) per frame.
"""

import torch.nn as nn


def _block(cin, cout, stride=1):
    return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class SquareNet(nn.Module):
    def __init__(self, nclass=29):
        super().__init__()
        self.features = nn.Sequential(
            *_block(3, 16), nn.MaxPool2d(2),            # 24x24
            *_block(16, 32), nn.MaxPool2d(2),           # 12x12
            *_block(32, 64), *_block(64, 64), nn.MaxPool2d(2),  # 6x6
            *_block(64, 128), nn.MaxPool2d(2),          # 3x3
            *_block(128, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(1),
        )
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(128, nclass)

    def forward(self, x):  # x: N x 3 x 48 x 48, BGR / 255
        return self.fc(self.drop(self.features(x)))
