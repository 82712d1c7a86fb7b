"""Exports a trained checkpoint to squares.onnx (opset 11) and checks it with OpenCV's dnn module
(readNetFromONNX, batches of 1 and 81) against PyTorch.

The network's one output "logits_features" is N x 157: the 29 class logits, then the 128 values of
the global average pool the last layer reads (the crop's embedding; the recorder's per-game piece-set
adaptation, recorder/record/adapt.h, compares crops by them). A 29-value model (older exports) still loads.

  /usr/bin/python3 export_onnx.py ../build/models/squares.pt squares.onnx [SIDE]

SIDE (default 48) is the input side the model was trained for (train.py --size): the graph's input is
declared N x 3 x SIDE x SIDE, and vision/classify.c reads that declaration and shrinks its 48-pixel crops
to it as train.py does (area averaging).
"""

import sys

import cv2
import numpy as np
import torch

from net import load

NFEAT = 128


class WithFeatures(torch.nn.Module):
    """SquareNet with the embedding beside the logits: out = [logits (29) | features (128)]."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        f = self.net.features(x)
        return torch.cat([self.net.fc(f), f], 1)


def main():
    ckpt, out = sys.argv[1], sys.argv[2]
    side = int(sys.argv[3]) if len(sys.argv) > 3 else 48  # input side (train.py --size); the graph declares it
    model = load(ckpt)
    model.eval()
    model = WithFeatures(model).eval()
    x = torch.rand(2, 3, side, side)
    torch.onnx.export(model, x, out, opset_version=11, input_names=["input"], output_names=["logits_features"],
                      dynamic_axes={"input": {0: "N"}, "logits_features": {0: "N"}}, do_constant_folding=True)
    import onnx

    m = onnx.load(out)
    onnx.checker.check_model(m)
    print("ops:", sorted({n.op_type for n in m.graph.node}))
    net = cv2.dnn.readNetFromONNX(out)
    rng = np.random.default_rng(0)
    for n in (1, 81):
        crops = [rng.integers(0, 256, (side, side, 3), dtype=np.uint8) for _ in range(n)]
        blob = cv2.dnn.blobFromImages(crops, 1.0 / 255, (side, side), (0, 0, 0), swapRB=False, crop=False)
        net.setInput(blob)
        got = net.forward()
        with torch.no_grad():
            ref = model(torch.from_numpy(blob)).numpy()
        err = np.abs(got - ref).max()
        print(f"opencv dnn batch {n}: output {got.shape}, max |diff| vs torch {err:.2e}")
        assert got.shape == (n, 29 + model.net.widths[-1]) and err < 1e-3
    print(f"{out}: ok")


if __name__ == "__main__":
    main()
