#!/usr/bin/env python3
"""Turns a PyTorch model (any torch.nn.Module) into a model file of trainvp's zoo format.

    tools/import_torch_model.py MODULE_OR_NAME OUT.yaml [--input 3x224x224] [--batch 2]
                                [--kwargs JSON] [--name NAME] [--source TEXT]

MODULE_OR_NAME is a torchvision model name (resnet50, vgg16, alexnet, vit_b_16,
mobilenet_v3_large, ...: built with weights=None, nothing is downloaded) or
path/to/file.py:ClassName (instantiated with --kwargs, default no arguments).  --input is the
per-sample input shape (CxHxW, or F, or TxF); --batch the batch the model is traced with (the
file holds per-sample counts; trainvp multiplies by the batch a config chooses).

How: torch.fx traces the module (torch.nn modules are leaves) and ShapeProp runs it once on a
zero tensor in eval mode, so every node has its output shape.  Each node becomes one layer of
workloads/models/README.md's format: conv, deconv, fc, pool, relu/activation, batchnorm,
layernorm, lrn, softmax, dropout, attention (nn.MultiheadAttention, self-attention), add,
concat, flatten, reshape where the node is exactly what that kind computes (same output shape,
same parameter count); anything else is a `generic` layer that states its output shape,
parameters and FLOPs (counted here, see FLOPS_PER_ELEMENT and the count_* functions) with a
note saying why.  Nothing is dropped: parameters reached through get_attr (ViT's class token
and position embedding) are counted on the layer that consumes them, and the file's parameter
total is checked against sum(p.numel() for p in model.parameters()).  Nodes that compute
nothing (nn.Identity, shape arithmetic, tuple unpacking of a layer's own output) are not layers;
the summary printed at the end lists them.

Needs python3-torch and python3-torchvision (Debian; scripts/setup.sh installs both).  Exit 2
on input errors (bad name, file, class or shape), with the reason on stderr.
"""
import argparse
import importlib.util
import json
import math
import operator
import os
import sys

try:
    import torch
    import torch.fx
    from torch.fx.passes.shape_prop import ShapeProp
except ImportError:  # the test skips (exit 77); the tool says what is missing
    torch = None


def patch_proxy_iter():
    """Lets torch.fx unpack a traced tuple (`n, c, h, w = x.shape`, as torchvision's ViT does)
    under Python 3.11 with torch 1.13 (Debian bookworm): 1.13 finds the calling instruction at
    index f_lasti // 2, which 3.11's inline caches break; torch 2.0 looks it up by offset, as
    this does."""
    import dis
    import inspect
    from torch.fx.proxy import Proxy
    if sys.version_info < (3, 11) or not torch.__version__.startswith("1."):
        return

    def proxy_iter(self):
        calling_frame = inspect.currentframe().f_back
        inst = next((i for i in dis.get_instructions(calling_frame.f_code)
                     if i.offset == calling_frame.f_lasti), None)
        if inst is not None and inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    Proxy.__iter__ = proxy_iter


class ImportError_(Exception):
    """An input error: exit 2 with the message."""


# Forward and backward (input gradient) FLOPs per output element of element-wise operations the
# zoo has no kind for.  Counted as the zoo counts its own (README.md "Formulas per kind": relu 1/1,
# sigmoid 4/3, tanh 5/3): one per arithmetic operation, a transcendental (exp, erf) one.
FLOPS_PER_ELEMENT = {
    "relu6": (2, 2),        # min(max(x, 0), 6); gradient: two compares, select
    "hardtanh": (2, 2),
    "leaky_relu": (2, 2),   # compare, scale-select; gradient the same
    "elu": (4, 3),          # compare, exp, sub, scale; gradient compare, add, select
    "hardsigmoid": (4, 2),  # add 3, clamp (2), divide by 6; gradient compare, scale
    "hardswish": (5, 4),    # x * relu6(x + 3) / 6; gradient compare, 2 mul-adds, select
    "silu": (5, 6),         # x * sigmoid(x); gradient s * (1 + x (1 - s))
    "gelu": (5, 8),         # 0.5 x (1 + erf(x / sqrt 2)); gradient Phi(x) + x phi(x), times dy
    "mish": (7, 9),         # x tanh(softplus(x))
    "softplus": (3, 3),
    "mul": (1, 2),          # element-wise product (broadcast): gradient w.r.t. each factor
    "sub": (1, 0),          # as add: the gradient is passed on
    "truediv": (1, 2),
    "neg": (1, 0),
    "exp": (1, 1),
    "sqrt": (1, 2),
    "pow": (1, 2),
}


def per_sample_shape(shape, batch, what):
    """The zoo's shape dict for a torch tensor shape (with its batch dimension)."""
    dims = list(shape)
    if dims and dims[0] == batch:
        dims = dims[1:]
    elif batch in dims:  # sequence-first layouts (T, N, F)
        dims.pop(dims.index(batch))
    else:
        raise ImportError_(f"{what}: no batch dimension (size {batch}) in its output shape "
                           f"{tuple(shape)}; trace with another --batch")
    if not dims:
        return {"features": 1}
    if len(dims) == 1:
        return {"features": dims[0]}
    if len(dims) == 2:
        return {"tokens": dims[0], "features": dims[1]}
    if len(dims) == 3:
        return {"channels": dims[0], "height": dims[1], "width": dims[2]}
    return {"tokens": math.prod(dims[:-1]), "features": dims[-1]}


def elements(s):
    return math.prod(s.values())


def shape_text(s):
    return "{" + ", ".join(f"{k}: {v}" for k, v in s.items()) + "}"


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def yaml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(yaml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return shape_text(v)
    s = str(v)
    if s.replace("_", "").replace("-", "").replace(".", "").isalnum() and not s[0].isdigit():
        return s
    return json.dumps(s)  # a YAML double-quoted string


def count_conv(c_in, k, r, s, groups, out):
    """Per-sample FLOPs of a convolution (README.md: 2*K*(C/g)*R*S*P*Q; bias adds not counted)."""
    f = 2 * k * (c_in // groups) * r * s * out["height"] * out["width"]
    return f, f, f


def count_fc(f_in, f_out, positions):
    f = 2 * f_in * f_out * positions
    return f, f, f


def count_attention(t, d, h):
    """README.md's attention row, per sample."""
    proj = 8 * t * d * d
    fwd = proj + 4 * t * t * d + 6 * h * t * t
    return fwd, proj + 8 * t * t * d + 5 * h * t * t, proj


class Importer:
    def __init__(self, model, example, batch, name, source, description):
        self.model = model
        self.example = example
        self.batch = batch
        self.name = name
        self.source = source
        self.description = description
        self.layers = []          # dicts in file order
        self.tensor = {}          # fx node -> zoo tensor name ("input" or a layer name)
        self.shape = {}           # zoo tensor name -> zoo shape dict
        self.const_params = {}    # fx node computed from parameters only -> {id: numel}
        self.seen_params = set()  # ids of parameters already counted
        self.skipped = []         # (node, reason): nodes that are not layers
        self.notes = []           # generic layers: (name, note)

    # ---- graph helpers -------------------------------------------------------------------
    def tensor_meta(self, node):
        return node.meta.get("tensor_meta")

    def is_data(self, a):
        return isinstance(a, torch.fx.Node) and a in self.tensor

    def data_args(self, node):
        """The node's arguments that are data tensors (computed from the model input), in order."""
        out = []
        torch.fx.node.map_arg((node.args, node.kwargs),
                              lambda a: out.append(a) if self.is_data(a) and a not in out else None)
        return out

    def folded_params(self, node):
        """Parameters reached through get_attr arguments (not yet counted), as {id: numel}."""
        found = {}
        torch.fx.node.map_arg((node.args, node.kwargs),
                              lambda a: found.update(self.const_params.get(a, {})))
        return found

    def out_shape(self, node, first=False):
        """The node's output as a zoo shape; of several outputs, their values as one vector
        (a generic layer's bytes), or with FIRST the first (a layer kind's own output, as
        nn.MultiheadAttention's (output, weights))."""
        meta = self.tensor_meta(node)
        if is_multi(meta):
            metas = [m for m in meta if hasattr(m, "shape")]
            shapes = [per_sample_shape(m.shape, self.batch, node.name) for m in metas]
            if len(shapes) == 1 or first:
                return shapes[0]
            return {"features": sum(elements(s) for s in shapes)}
        return per_sample_shape(meta.shape, self.batch, node.name)

    def in_shape(self, a):
        return self.shape[self.tensor[a]]

    # ---- emitting ------------------------------------------------------------------------
    def emit(self, node, kind, fields, inputs, params=0):
        name = node.name if node.name != "input" else "input_"
        layer = {"name": name, "kind": kind}
        layer.update(fields)
        ins = [self.tensor[a] for a in inputs]
        previous = self.layers[-1]["name"] if self.layers else "input"
        if kind in ("add", "concat") or ins != [previous]:
            layer["inputs"] = ins
        layer["_params"] = params
        self.layers.append(layer)
        self.tensor[node] = name
        self.shape[name] = fields["output"] if kind == "generic" else self.out_shape(node, True)
        return layer

    def alias(self, node, source, why):
        """NODE computes nothing: it stands for SOURCE's tensor."""
        self.tensor[node] = self.tensor[source]
        self.skipped.append((node.name, why))

    def generic(self, node, op, inputs, flops, note, params_by_id=None, out=None):
        params_by_id = dict(params_by_id or {})
        for i in list(params_by_id):
            if i in self.seen_params:
                del params_by_id[i]
        self.seen_params.update(params_by_id)
        params = sum(params_by_id.values())
        fwd, bwd_in, bwd_w = flops
        if params == 0:
            bwd_w = 0
        fields = {"op": op, "output": out or self.out_shape(node)}
        if params:
            fields["params"] = params
        for k, v in (("forward_flops", fwd), ("backward_input_flops", bwd_in),
                     ("backward_weight_flops", bwd_w)):
            if v:
                fields[k] = int(v)
        fields["note"] = note
        self.notes.append((node.name, op, note))
        return self.emit(node, "generic", fields, inputs, params)

    def mapped(self, node, kind, fields, inputs, params_by_id, zoo_params, zoo_out):
        """A zoo kind if it computes exactly what the node does, else None."""
        if any(i in self.seen_params for i in params_by_id):
            return None  # shared weights: the zoo kind would count them again
        torch_params = sum(params_by_id.values())
        if torch_params != zoo_params or zoo_out != self.out_shape(node, True):
            return None
        self.seen_params.update(params_by_id)
        return self.emit(node, kind, fields, inputs, torch_params)

    # ---- the walk ------------------------------------------------------------------------
    def run(self):
        gm = torch.fx.symbolic_trace(self.model)
        self.model.eval()
        with torch.no_grad():
            ShapeProp(gm).propagate(self.example)
        self.modules = dict(gm.named_modules())
        for node in gm.graph.nodes:
            self.visit(gm, node)
        return self

    def visit(self, gm, node):
        if node.op == "placeholder":
            if self.tensor:
                raise ImportError_(f"the model takes more than one input ({node.name}); "
                                   "wrap it in a module with one tensor input")
            self.tensor[node] = "input"
            self.shape["input"] = self.out_shape(node)
            return
        if node.op == "output":
            return
        if node.op == "get_attr":
            obj = gm
            for part in node.target.split("."):
                obj = getattr(obj, part)
            if isinstance(obj, torch.nn.Parameter) and obj.requires_grad:
                self.const_params[node] = {id(obj): obj.numel()}
            else:
                self.const_params[node] = {}
            return
        meta = self.tensor_meta(node)
        data = self.data_args(node)
        if meta is None:
            self.skipped.append((node.name, "shape arithmetic"))
            return
        if not data:
            # Computed from parameters and constants only (ViT's class token expanded): its
            # parameters go to the layer that consumes it.
            params = self.folded_params(node)
            if node.op == "call_module":
                params.update({id(p): p.numel() for p in
                               self.modules[node.target].parameters() if p.requires_grad})
            self.const_params[node] = params
            self.skipped.append((node.name, "computed from parameters only (counted on its consumer)"))
            return
        if node.op == "call_function" and node.target is operator.getitem:
            src = node.args[0]
            if is_multi(self.tensor_meta(src)):
                producer = next((l for l in self.layers if l["name"] == self.tensor[src]), None)
                if node.args[1] == 0 and producer is not None and producer["kind"] != "generic":
                    # A leaf layer's first output (nn.MultiheadAttention's (out, weights)).
                    self.tensor[node] = self.tensor[src]
                    self.skipped.append((node.name, "the first output of the layer before (its tuple unpacked)"))
                    return
                self.generic(node, "getitem", data, (0, 0, 0),
                             f"element {node.args[1]} of {self.tensor[src]}'s outputs")
                return
        if node.op == "call_module":
            self.visit_module(node, self.modules[node.target], data)
        elif node.op == "call_function":
            self.visit_function(node, node.target, data)
        elif node.op == "call_method":
            self.visit_function(node, node.target, data)
        else:
            raise ImportError_(f"{node.name}: unknown fx node op {node.op}")

    def module_params(self, mod, node):
        params = {id(p): p.numel() for p in mod.parameters() if p.requires_grad}
        params.update(self.folded_params(node))
        return params

    def visit_module(self, node, mod, data):
        nn = torch.nn
        params = self.module_params(mod, node)
        out = self.out_shape(node)
        x = self.in_shape(data[0])
        e = elements(out)
        cls = type(mod).__name__
        done = None
        if isinstance(mod, nn.Identity) and len(data) == 1:
            self.tensor[node] = self.tensor[data[0]]
            self.skipped.append((node.name, "nn.Identity"))
            return
        if isinstance(mod, nn.Conv2d) and "channels" in x and len(data) == 1:
            r, s = mod.kernel_size
            pad = mod.padding if not isinstance(mod.padding, str) else None
            if pad is not None and tuple(mod.dilation) == (1, 1):
                k = mod.out_channels
                zoo_out = conv_out(x, k, (r, s), mod.stride, pad)
                zoo_params = k * (x["channels"] // mod.groups) * r * s + (k if mod.bias is not None else 0)
                f = {"in_channels": mod.in_channels, "out_channels": k, "kernel": kernel(r, s),
                     "stride": kernel(*mod.stride), "padding": kernel(*pad)}
                if mod.groups != 1:
                    f["groups"] = mod.groups
                f["bias"] = mod.bias is not None
                drop_defaults(f, {"stride": 1, "padding": 0})
                done = self.mapped(node, "conv", f, data, params, zoo_params, zoo_out)
            if done is None:
                self.generic(node, "torch.nn.Conv2d", data,
                             count_conv(x["channels"], mod.out_channels, r, s, mod.groups, out),
                             why_generic(mod, "dilation or 'same' padding, or shared weights"),
                             params)
            return
        if isinstance(mod, nn.ConvTranspose2d) and "channels" in x and len(data) == 1:
            r, s = mod.kernel_size
            k = mod.out_channels
            if tuple(mod.dilation) == (1, 1) and mod.groups == 1:
                sh, sw = mod.stride
                ph, pw = mod.padding
                oh, ow = mod.output_padding
                zoo_out = {"channels": k, "height": (x["height"] - 1) * sh - 2 * ph + r + oh,
                           "width": (x["width"] - 1) * sw - 2 * pw + s + ow}
                zoo_params = x["channels"] * k * r * s + (k if mod.bias is not None else 0)
                f = {"in_channels": mod.in_channels, "out_channels": k, "kernel": kernel(r, s),
                     "stride": kernel(sh, sw), "padding": kernel(ph, pw),
                     "output_padding": kernel(oh, ow), "bias": mod.bias is not None}
                drop_defaults(f, {"stride": 1, "padding": 0, "output_padding": 0})
                done = self.mapped(node, "deconv", f, data, params, zoo_params, zoo_out)
            if done is None:
                fl = 2 * x["channels"] // mod.groups * k * r * s * x["height"] * x["width"]
                self.generic(node, "torch.nn.ConvTranspose2d", data, (fl, fl, fl),
                             why_generic(mod, "dilation or groups"), params)
            return
        if isinstance(mod, nn.Linear) and len(data) == 1:
            f_in, f_out = mod.in_features, mod.out_features
            if "channels" not in x:
                zoo_params = f_in * f_out + (f_out if mod.bias is not None else 0)
                f = {"in": f_in, "out": f_out, "bias": mod.bias is not None}
                done = self.mapped(node, "fc", f, data, params, zoo_params, with_last(x, f_out))
            if done is None:
                self.generic(node, "torch.nn.Linear", data,
                             count_fc(f_in, f_out, elements(x) // f_in),
                             "a Linear on a feature map (the zoo's fc acts on vectors or tokens)"
                             " or with shared weights", params)
            return
        if isinstance(mod, (nn.MaxPool2d, nn.AvgPool2d)) and "channels" in x:
            op = "max" if isinstance(mod, nn.MaxPool2d) else "avg"
            kh, kw = pair(mod.kernel_size)
            st = pair(mod.stride if mod.stride is not None else mod.kernel_size)
            pd = pair(mod.padding)
            dil = pair(getattr(mod, "dilation", 1))
            if dil == (1, 1):
                zoo_out = conv_out(x, x["channels"], (kh, kw), st, pd)
                f = {"op": op, "kernel": kernel(kh, kw), "stride": kernel(*st),
                     "padding": kernel(*pd)}
                drop_defaults(f, {"padding": 0})
                done = self.mapped(node, "pool", f, data, params, 0, zoo_out)
            if done is None:
                fl = e * kh * kw
                self.generic(node, f"torch.nn.{cls}", data, (fl, fl, 0),
                             "pooling the zoo's pool does not express (ceil_mode or dilation)")
            return
        if isinstance(mod, (nn.AdaptiveAvgPool2d, nn.AdaptiveMaxPool2d)) and "channels" in x:
            op = "avg" if isinstance(mod, nn.AdaptiveAvgPool2d) else "max"
            h, w, oh, ow = x["height"], x["width"], out["height"], out["width"]
            if h % oh == 0 and w % ow == 0:
                # An adaptive pool whose output divides its input is a plain pool.
                f = {"op": op, "kernel": kernel(h // oh, w // ow),
                     "stride": kernel(h // oh, w // ow)}
                done = self.mapped(node, "pool", f, data, params, 0,
                                   conv_out(x, x["channels"], (h // oh, w // ow),
                                            (h // oh, w // ow), (0, 0)))
            if done is None:
                fl = elements(x)
                self.generic(node, f"torch.nn.{cls}", data, (fl, fl, 0),
                             "adaptive pooling with uneven windows: one FLOP per input value")
            return
        if isinstance(mod, nn.ReLU):
            self.activation(node, data, params, "relu")
            return
        if isinstance(mod, nn.Sigmoid):
            self.activation(node, data, params, "sigmoid")
            return
        if isinstance(mod, nn.Tanh):
            self.activation(node, data, params, "tanh")
            return
        if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d)) and len(data) == 1:
            c = x["channels"] if "channels" in x else x["features"]
            done = self.mapped(node, "batchnorm", {"channels": c}, data, params, 2 * c, x)
            if done is None:
                self.generic(node, f"torch.nn.{cls}", data, (8 * e, 5 * e, 3 * e),
                             "batch norm without affine parameters, or on a layout the zoo "
                             "normalises differently", params)
            return
        if isinstance(mod, nn.LayerNorm) and len(data) == 1:
            if "channels" not in x and tuple(mod.normalized_shape) == (x["features"],):
                done = self.mapped(node, "layernorm", {}, data, params, 2 * x["features"], x)
            if done is None:
                self.generic(node, "torch.nn.LayerNorm", data, (8 * e, 5 * e, 3 * e),
                             "layer norm over more than the last dimension, or without "
                             "affine parameters", params)
            return
        if isinstance(mod, nn.LocalResponseNorm) and "channels" in x:
            self.mapped(node, "lrn", {"size": mod.size}, data, params, 0, x) or \
                self.generic(node, "torch.nn.LocalResponseNorm", data,
                             ((2 * mod.size + 4) * e, 2 * (2 * mod.size + 4) * e, 0), "")
            return
        if isinstance(mod, nn.Softmax):
            self.softmax(node, data, params, mod.dim)
            return
        if isinstance(mod, (nn.Dropout, nn.Dropout2d, nn.AlphaDropout)) and len(data) == 1:
            if mod.p == 0:
                self.alias(node, data[0], "dropout of rate 0 (PyTorch returns its input)")
                return
            if mod.p < 1:
                done = self.mapped(node, "dropout", {"rate": float(mod.p)}, data, params, 0, x)
            if done is None:
                self.generic(node, f"torch.nn.{cls}", data, (e, e, 0), "dropout of rate 1")
            return
        if isinstance(mod, nn.Flatten) and len(data) == 1:
            self.flatten(node, data, params)
            return
        if isinstance(mod, nn.MultiheadAttention):
            self.attention(node, mod, data, params)
            return
        fn = ELEMENTWISE_MODULES.get(type(mod))
        if fn is not None:
            fw, bw = FLOPS_PER_ELEMENT[fn]
            self.generic(node, f"torch.nn.{cls}", data, (fw * e, bw * e, e),
                         f"{fn}: no zoo kind; {fw} FLOPs per value forward, {bw} backward",
                         params)
            return
        # Anything else: one FLOP per output value each way, and its parameters.
        self.generic(node, f"{type(mod).__module__}.{cls}", data, (e, e, e),
                     "no zoo kind and no FLOP count known for this module: 1 FLOP per "
                     "output value forward and backward (input and weight gradients) counted",
                     params)

    def activation(self, node, data, params, fn):
        x = self.in_shape(data[0])
        f = {} if fn == "relu" else {"function": fn}
        kind = "relu" if fn == "relu" else "activation"
        if len(data) != 1 or not self.mapped(node, kind, f, data, params, 0, x):
            fw, bw = {"relu": (1, 1), "sigmoid": (4, 3), "tanh": (5, 3)}[fn]
            e = elements(self.out_shape(node))
            self.generic(node, fn, data, (fw * e, bw * e, 0), f"{fn} with more than one input",
                         params)

    def softmax(self, node, data, params, dim):
        x = self.in_shape(data[0])
        meta = self.tensor_meta(node)
        last = dim is None or dim == -1 or dim == len(meta.shape) - 1
        if not ("channels" not in x and last and len(data) == 1 and
                self.mapped(node, "softmax", {}, data, params, 0, x)):
            e = elements(self.out_shape(node))
            self.generic(node, "softmax", data, (5 * e, 4 * e, 0),
                         f"softmax over dimension {dim}, not the last of a vector or tokens",
                         params)

    def flatten(self, node, data, params):
        x = self.in_shape(data[0])
        out = self.out_shape(node)
        if x == out:
            self.tensor[node] = self.tensor[data[0]]
            self.skipped.append((node.name, "a flatten of a vector (no change)"))
            return
        if not ("channels" in x and out == {"features": elements(x)} and
                self.mapped(node, "flatten", {}, data, params, 0, out)):
            self.generic(node, "flatten", data, (0, 0, 0), "a reshape the zoo's flatten "
                         "(CxHxW to features) does not express: data movement only", params)

    def attention(self, node, mod, data, params):
        x = self.in_shape(data[0])
        qkv = list(node.args[:3])
        for i, k in enumerate(("query", "key", "value")):
            if i >= len(qkv):
                qkv.append(node.kwargs.get(k))
        q, k, v = qkv
        self_attn = q is k is v and "tokens" in x and mod._qkv_same_embed_dim
        d = mod.embed_dim
        if self_attn:
            zoo_params = 4 * d * d + (4 * d if mod.in_proj_bias is not None else 0)
            f = {"heads": mod.num_heads, "bias": mod.in_proj_bias is not None, "d_model": d,
                 "seq_len": x["tokens"]}
            if self.mapped(node, "attention", f, data, params, zoo_params, x):
                return
        t = x.get("tokens", 1)
        self.generic(node, "torch.nn.MultiheadAttention", data,
                     count_attention(t, d, mod.num_heads),
                     "cross-attention or different key/value widths: counted as "
                     "self-attention over the query's tokens", params, out=x)

    def visit_function(self, node, target, data):
        name = target if isinstance(target, str) else getattr(target, "__name__", str(target))
        params = self.folded_params(node)
        out = self.out_shape(node)
        e = elements(out)
        x = self.in_shape(data[0])
        if name in ("add", "iadd", "__add__", "__iadd__"):
            shapes = [self.in_shape(a) for a in data]
            tensor_args = [a for a in node.args if isinstance(a, torch.fx.Node)]
            if len(data) >= 2 and len(tensor_args) == len(data) and \
                    all(s == out for s in shapes) and not params:
                self.emit(node, "add", {}, data, 0)
                return
            what = (f"adds a parameter of {sum(params.values())} values (its gradient, the sum "
                    "of the output gradient over the batch, is the weight gradient)" if params
                    else "an add of a constant or a broadcast tensor")
            self.generic(node, "add", data, (e, 0, e),
                         what + "; the zoo's add sums equal-shaped layer outputs", params)
            return
        if name in ("relu", "relu_"):
            self.activation(node, data, params, "relu")
            return
        if name in ("sigmoid", "tanh"):
            self.activation(node, data, params, name)
            return
        if name == "softmax":
            dim = node.kwargs.get("dim", node.args[1] if len(node.args) > 1 else None)
            self.softmax(node, data, params, dim)
            return
        if name == "dropout":
            p = node.kwargs.get("p", node.args[1] if len(node.args) > 1 else 0.5)
            if p == 0 and len(data) == 1:
                self.alias(node, data[0], "dropout of rate 0 (PyTorch returns its input)")
                return
            if not (len(data) == 1 and p < 1 and
                    self.mapped(node, "dropout", {"rate": float(p)}, data, params, 0, x)):
                self.generic(node, "dropout", data, (e, e, 0), "dropout of rate 1", params)
            return
        if name == "flatten" or (name in ("view", "reshape") and out == {"features": elements(x)}):
            self.flatten(node, data, params)
            return
        if name == "cat":
            dim = node.kwargs.get("dim", node.args[1] if len(node.args) > 1 else 0)
            ndim = len(self.tensor_meta(node).shape)
            dim = dim % ndim
            along = 1 if "channels" in out else ndim - 1
            tensors = node.args[0]
            if dim == along and not params and all(self.is_data(a) for a in tensors) and \
                    len(tensors) >= 2:
                self.emit(node, "concat", {}, list(tensors), 0)
                return
            what = "a concatenation along dimension %d" % dim
            if params:
                what += f" with a parameter of {sum(params.values())} values (ViT's class token)"
            self.generic(node, "cat", data, (0, 0, 0),
                         what + "; the zoo's concat joins layer outputs along channels/features; "
                         "data movement only", params)
            return
        if name in ("matmul", "bmm", "mm"):
            a, b = (self.tensor_meta(n) for n in node.args[:2])
            m, kk, n = a.shape[-2] if len(a.shape) > 1 else 1, a.shape[-1], b.shape[-1]
            batches = max(1, math.prod(out.values()) // (m * n)) if m * n else 1
            fl = 2 * m * kk * n * batches
            self.generic(node, name, data, (fl, 2 * fl, fl if params else 0),
                         "a matrix product: 2 FLOPs per multiply-add, backward twice (both "
                         "operands)", params)
            return
        if name in ("mean", "sum", "adaptive_avg_pool2d", "avg_pool2d", "max_pool2d", "amax",
                    "max", "norm"):
            fl = elements(x)
            self.generic(node, name, data, (fl, fl, 0),
                         "a reduction: one FLOP per input value", params)
            return
        op = ELEMENTWISE_FUNCTIONS.get(name)
        if op is not None:
            fw, bw = FLOPS_PER_ELEMENT[op]
            self.generic(node, name, data, (fw * e, bw * e, e),
                         f"element-wise {op}: {fw} FLOPs per value forward, {bw} backward", params)
            return
        if name in DATA_MOVEMENT:
            if out == x and not params and len(data) == 1 and name in NO_COPY:
                self.tensor[node] = self.tensor[data[0]]
                self.skipped.append((node.name, f"{name} without a change of shape or values"))
                return
            self.generic(node, name, data, (0, 0, 0),
                         f"{name}: data movement only (no FLOPs)", params)
            return
        self.generic(node, name, data, (e, e, e),
                     f"no zoo kind and no FLOP count known for {name}: 1 FLOP per output value "
                     "forward and backward counted", params)


def is_multi(meta):
    """Whether a node's tensor_meta is that of several outputs (TensorMetadata is a tuple too)."""
    return isinstance(meta, (tuple, list)) and not hasattr(meta, "shape")


def with_last(x, f):
    out = dict(x)
    out["features"] = f
    return out


def kernel(h, w):
    return h if h == w else [h, w]


def drop_defaults(f, defaults):
    for k, v in defaults.items():
        if f.get(k) == v:
            del f[k]


def conv_out(x, k, ks, stride, pad):
    (r, s), (sh, sw), (ph, pw) = pair(ks), pair(stride), pair(pad)
    h = (x["height"] + 2 * ph - r) // sh + 1
    w = (x["width"] + 2 * pw - s) // sw + 1
    return {"channels": k, "height": h, "width": w}


def why_generic(mod, what):
    return f"a {type(mod).__name__} the zoo's kind does not express ({what})"


ELEMENTWISE_FUNCTIONS = {
    "gelu": "gelu", "silu": "silu", "hardswish": "hardswish", "hardsigmoid": "hardsigmoid",
    "relu6": "relu6", "hardtanh": "hardtanh", "leaky_relu": "leaky_relu", "elu": "elu",
    "mish": "mish", "softplus": "softplus",
    "mul": "mul", "imul": "mul", "__mul__": "mul", "mul_": "mul",
    "sub": "sub", "__sub__": "sub", "rsub": "sub", "truediv": "truediv", "div": "truediv",
    "__truediv__": "truediv", "neg": "neg", "exp": "exp", "sqrt": "sqrt", "pow": "pow",
}
DATA_MOVEMENT = {"view", "reshape", "permute", "transpose", "contiguous", "expand", "expand_as",
                 "getitem", "squeeze", "unsqueeze", "flatten", "chunk", "split", "narrow",
                 "repeat", "clone", "to", "type_as", "float", "detach", "select", "roll", "pad",
                 "stack", "unbind", "__getitem__"}
NO_COPY = {"contiguous", "clone", "to", "type_as", "float", "detach", "view", "reshape"}


def elementwise_modules():
    nn = torch.nn
    return {nn.GELU: "gelu", nn.SiLU: "silu", nn.Hardswish: "hardswish",
            nn.Hardsigmoid: "hardsigmoid", nn.ReLU6: "relu6", nn.Hardtanh: "hardtanh",
            nn.LeakyReLU: "leaky_relu", nn.ELU: "elu", nn.Mish: "mish", nn.Softplus: "softplus"}


ELEMENTWISE_MODULES = {}


def parse_shape(text):
    try:
        dims = [int(x) for x in text.lower().split("x")]
    except ValueError:
        dims = []
    if not dims or any(d <= 0 for d in dims) or len(dims) > 3:
        raise ImportError_(f"--input {text}: expected CxHxW, TxF or F with positive sizes")
    return dims


def build_model(spec, kwargs):
    """The module named by SPEC: a torchvision model name or path/to/file.py:ClassName."""
    if ":" in spec:
        path, cls = spec.rsplit(":", 1)
        if not os.path.isfile(path):
            raise ImportError_(f"{path}: no such file")
        mod_spec = importlib.util.spec_from_file_location(
            os.path.splitext(os.path.basename(path))[0], path)
        module = importlib.util.module_from_spec(mod_spec)
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        mod_spec.loader.exec_module(module)
        if not hasattr(module, cls):
            raise ImportError_(f"{path}: defines no {cls}")
        model = getattr(module, cls)(**kwargs)
        if not isinstance(model, torch.nn.Module):
            raise ImportError_(f"{spec}: {cls}(...) is not a torch.nn.Module")
        return model, f"{cls} from {os.path.basename(path)}"
    import torchvision
    names = torchvision.models.list_models() if hasattr(torchvision.models, "list_models") else \
        [n for n in dir(torchvision.models) if n.islower() and not n.startswith("_")]
    if spec not in names:
        import difflib
        close = difflib.get_close_matches(spec, names, n=1)
        raise ImportError_(f"no torchvision model '{spec}'" +
                           (f" (did you mean '{close[0]}'?)" if close else "") +
                           "; or give path/to/file.py:ClassName")
    model = torchvision.models.get_model(spec, weights=None, **kwargs)
    return model, f"torchvision {torchvision.__version__.split('+')[0]} models.{spec}"


def write_yaml(imp, path, command, input_shape):
    total = sum(l["_params"] for l in imp.layers)
    lines = [
        f"# Imported from PyTorch by tools/import_torch_model.py (torch "
        f"{torch.__version__.split('+')[0]}): {imp.source}.",
        f"#   {command}",
        f"# {len(imp.layers)} layers, {total:,} parameters "
        f"(= sum of the module's parameters); per-sample counts, batch chosen by the config.",
    ]
    generics = [l for l in imp.layers if l["kind"] == "generic"]
    if generics:
        lines.append(f"# {len(generics)} generic layers (operations with no zoo kind; "
                     "their FLOPs are counted by the importer, see each note).")
    by_reason = {}
    for n, why in imp.skipped:
        if why != "shape arithmetic":
            by_reason.setdefault(why, []).append(n)
    if by_reason:
        lines.append("# Not layers (they compute nothing): " + "; ".join(
            f"{why}: {', '.join(names)}" for why, names in by_reason.items()) + ".")
    lines = [wrap_comment(l) for l in lines]
    lines += [f"name: {yaml_value(imp.name)}", f"source: {json.dumps(imp.source)}"]
    if imp.description:
        lines.append(f"description: {json.dumps(imp.description)}")
    lines.append(f"input: {shape_text(input_shape)}")
    lines.append("layers:")
    for l in imp.layers:
        items = [f"{k}: {yaml_value(v)}" for k, v in l.items() if not k.startswith("_")]
        lines.append("  - {" + ", ".join(items) + "}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return total


def wrap_comment(line, width=100):
    out, cur = [], ""
    for word in line[2:].split(" "):
        if cur and len(cur) + 1 + len(word) + 2 > width:
            out.append("# " + cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    out.append("# " + cur)
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", help="torchvision model name, or path/to/file.py:ClassName")
    ap.add_argument("out", help="the model file to write (.yaml)")
    ap.add_argument("--input", default="3x224x224",
                    help="per-sample input shape: CxHxW, TxF or F (default 3x224x224)")
    ap.add_argument("--batch", type=int, default=2, help="batch to trace with (default 2)")
    ap.add_argument("--kwargs", default="{}", help="constructor arguments as JSON")
    ap.add_argument("--name", help="the model's name in reports (default: from MODEL)")
    ap.add_argument("--source", help="the source line (default: where the module came from)")
    ap.add_argument("--description", help="an optional description line")
    args = ap.parse_args(argv)
    if torch is None:
        print("import_torch_model: needs python3-torch and python3-torchvision "
              "(scripts/setup.sh installs them)", file=sys.stderr)
        return 2
    try:
        ELEMENTWISE_MODULES.update(elementwise_modules())
        patch_proxy_iter()
        if args.batch < 2:
            raise ImportError_("--batch must be at least 2 (the batch dimension is found by size)")
        dims = parse_shape(args.input)
        kwargs = json.loads(args.kwargs)
        model, where = build_model(args.model, kwargs)
        torch.manual_seed(0)
        example = torch.zeros([args.batch] + dims)
        name = args.name or os.path.splitext(os.path.basename(args.model.split(":")[-1]))[0]
        name = name.lower() if ":" in args.model else name
        imp = Importer(model, example, args.batch, name, args.source or where, args.description)
        try:
            imp.run()
        except torch.fx.proxy.TraceError as e:
            raise ImportError_(f"torch.fx cannot trace {args.model}: {e}")
        input_shape = per_sample_shape(example.shape, args.batch, "input")
        command = "tools/import_torch_model.py " + " ".join(
            a if " " not in a else json.dumps(a) for a in (argv if argv is not None else sys.argv[1:]))
        total = write_yaml(imp, args.out, command, input_shape)
        want = sum(p.numel() for p in model.parameters() if p.requires_grad)
        if total != want:
            raise ImportError_(f"internal: the layers hold {total} parameters, the module "
                               f"{want}; please report")
    except ImportError_ as e:
        print(f"import_torch_model: error: {e}", file=sys.stderr)
        return 2
    kinds = {}
    for l in imp.layers:
        kinds[l["kind"]] = kinds.get(l["kind"], 0) + 1
    print(f"{args.out}: {imp.name}, {len(imp.layers)} layers, {total:,} parameters")
    print("  kinds: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    for n, op, note in imp.notes:
        print(f"  generic {n} ({op}): {note}")
    by_reason = {}
    for n, why in imp.skipped:
        if why != "shape arithmetic":
            by_reason.setdefault(why, []).append(n)
    for why, names in by_reason.items():
        print(f"  not layers ({why}): {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
