"""Writes two small ONNX files that are no square classifier for kifucam, for the tests of its one-line
errors: side96-model.onnx declares an N x 3 x 96 x 96 input (kifucam's crops are 48 x 48, or shrunk);
unknown-op-model.onnx uses an operator OpenCV does not know (FooBar). Run once:
/usr/bin/python3 make_bad_models.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(nodes, side, inits, name):
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, side, side])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 29])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    onnx.save(m, os.path.join(HERE, name))


W, b = np.ones((29, 3), np.float32), np.zeros((29,), np.float32)
save([helper.make_node("GlobalAveragePool", ["input"], ["gap"]), helper.make_node("Flatten", ["gap"], ["flat"], axis=1),
      helper.make_node("Gemm", ["flat", "W", "b"], ["logits"], transB=1)], 96,
     [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")], "side96-model.onnx")
save([helper.make_node("FooBar", ["input"], ["logits"])], 48, [], "unknown-op-model.onnx")
