"""Writes tests/data/nan-model.onnx: a network with the square classifier's shapes (N x 3 x 48 x 48 in,
N x 29 out) whose every output is NaN (global average pool, then a Gemm with zero weights and NaN
biases), for the test that a broken model is refused. Run once: /usr/bin/python3 make_nan_model.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

W = np.zeros((29, 3), np.float32)
b = np.full((29,), np.nan, np.float32)
nodes = [helper.make_node("GlobalAveragePool", ["input"], ["gap"]),
         helper.make_node("Flatten", ["gap"], ["flat"], axis=1),
         helper.make_node("Gemm", ["flat", "W", "b"], ["logits"], transB=1)]
g = helper.make_graph(nodes, "nan_classifier",
                      [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 48, 48])],
                      [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 29])],
                      [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nan-model.onnx"))
