"""Exports a trained checkpoint to squares.onnx (opset 11) and checks it with OpenCV's dnn module
(readNetFromONNX, batches of 1 and 81) against PyTorch.

  /usr/bin/python3 export_onnx.py ../build/models/squares.pt squares.onnx
"""

import sys

import cv2
import numpy as np
import torch

from net import SquareNet


def main():
    ckpt, out = sys.argv[1], sys.argv[2]
    model = SquareNet()
    model.load_state_dict(torch.load(ckpt))
    model.eval()
    x = torch.rand(2, 3, 48, 48)
    torch.onnx.export(model, x, out, opset_version=11, input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, do_constant_folding=True)
    import onnx

    m = onnx.load(out)
    onnx.checker.check_model(m)
    print("ops:", sorted({n.op_type for n in m.graph.node}))
    net = cv2.dnn.readNetFromONNX(out)
    rng = np.random.default_rng(0)
    for n in (1, 81):
        crops = [rng.integers(0, 256, (48, 48, 3), dtype=np.uint8) for _ in range(n)]
        blob = cv2.dnn.blobFromImages(crops, 1.0 / 255, (48, 48), (0, 0, 0), swapRB=False, crop=False)
        net.setInput(blob)
        got = net.forward()
        with torch.no_grad():
            ref = model(torch.from_numpy(blob)).numpy()
        err = np.abs(got - ref).max()
        print(f"opencv dnn batch {n}: output {got.shape}, max |diff| vs torch {err:.2e}")
        assert got.shape == (n, 29) and err < 1e-3
    print(f"{out}: ok")


if __name__ == "__main__":
    main()
