"""Writes tests/data/side32-model.onnx: a "square classifier" whose graph declares a 32 x 32 input (N x 3 x
32 x 32 in, N x 29 out): Flatten, then a Gemm whose row k picks one input value, so that its logits are
29 chosen values of the shrunk crop (and a 48 x 48 input would not fit the Gemm). For the test that
vision/classify.c reads the declared side and shrinks its 48-pixel crops to it as train.py --size does.
Logit k is channel k % 3, row PICK[k][0], column PICK[k][1]. Run once: /usr/bin/python3 make_side_model.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

S = 32
PICK = [((k * 7) % S, (k * 11 + 3) % S) for k in range(29)]
W = np.zeros((29, 3 * S * S), np.float32)
for k, (y, x) in enumerate(PICK):
    W[k, (k % 3) * S * S + y * S + x] = 1
b = np.zeros((29,), np.float32)
nodes = [helper.make_node("Flatten", ["input"], ["flat"], axis=1),
         helper.make_node("Gemm", ["flat", "W", "b"], ["logits"], transB=1)]
g = helper.make_graph(nodes, "side32_classifier",
                      [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, S, S])],
                      [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 29])],
                      [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(os.path.dirname(os.path.abspath(__file__)), "side32-model.onnx"))

if __name__ == "__main__":  # the expected logits of a 48-pixel blob whose value at (c, y, x) is (c*48*48 + y*48 + x) / 1e4
    import torch
    blob = torch.arange(3 * 48 * 48, dtype=torch.float32).reshape(1, 3, 48, 48) / 1e4
    small = torch.nn.functional.interpolate(blob, size=(S, S), mode="area")[0]
    print([round(float(small[k % 3, y, x]), 6) for k, (y, x) in enumerate(PICK)])
