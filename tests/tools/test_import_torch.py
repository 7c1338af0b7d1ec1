#!/usr/bin/env python3
"""tools/import_torch_model.py against the zoo, and an imported model trained on a platform.

    tests/tools/test_import_torch.py SOURCE_DIR TRAINVP [--write]

1. torchvision's ResNet-50, VGG-16 and AlexNet are imported and compared with the zoo's
   resnet50, vgg16 and alexnet_1tower layer by layer (trainvp describe zoo.X --markdown: the C++
   loader's exact counts per sample).  Layers are aligned by (kind, output shape, parameters,
   FLOPs); every layer that does not match must be one of the differences listed in EXPECTED
   with its reason, and the totals' differences must be exactly the sum of those layers'.
   torchvision's AlexNet is also compared with the zoo's two-tower `alexnet` (a different
   network: only its parameter count is shown).
2. The committed configs/examples/models/vit_b_16.yaml is what the importer writes today.
3. configs/examples/torch_vit_star5.yaml (that model on star5's platform) runs: every worker
   computes batch x (forward + backward FLOPs of the model file) and sends params x 4 bytes.
4. The table in docs/validation.md (section torch-import) is this test's; --write rewrites it.

Exits 77 (skipped) when python3-torch or python3-torchvision is missing (scripts/setup.sh
installs both, so CI runs it).
"""
import atexit
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import torch  # noqa: F401  (the importer needs it; the test only checks it is there)
    import torchvision
except ImportError:
    print("skipped: python3-torch / python3-torchvision not installed")
    sys.exit(77)

SRC, TRAINVP = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
WRITE = "--write" in sys.argv[3:]
sys.path.insert(0, os.path.join(SRC, "tools"))
from validation_section import replace_section  # noqa: E402

IMPORTER = os.path.join(SRC, "tools", "import_torch_model.py")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def describe(model):
    """Layers and totals of a zoo name or model file, from the C++ loader (batch 1)."""
    out = subprocess.run([TRAINVP, "describe", "zoo." + model, "--markdown"], cwd=SRC,
                         check=True, capture_output=True, text=True).stdout
    layers, total = [], None
    for line in out.splitlines():
        if not line.startswith("| ") or line.startswith("| layer ") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        row = {"name": cells[0], "kind": cells[1], "output": cells[2], "params": int(cells[3]),
               "fwd": int(cells[4]), "bwd_in": int(cells[5]), "bwd_w": int(cells[6])}
        if row["name"] == "total":
            total = row
        else:
            layers.append(row)
    return layers, total


def key(l):
    return (l["kind"], l["output"], l["params"], l["fwd"], l["bwd_in"], l["bwd_w"])


def differences(zoo, imp):
    """Blocks of layers that differ: [(zoo layers, imported layers)]."""
    sm = difflib.SequenceMatcher(a=[key(l) for l in zoo], b=[key(l) for l in imp],
                                 autojunk=False)
    return [(zoo[i1:i2], imp[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes()
            if tag != "equal"]


def first_blocks(stage):
    """ResNet-50's stride placement, stage 3/4/5 (torchvision layer2..4): the zoo strides the
    first 1x1 conv (He et al.), torchvision the 3x3 conv ("v1.5"), so torchvision's conv1,
    bn1 and relu of the stage's first block run at the previous stage's resolution."""
    t = f"layer{stage - 1}_0"
    return ([f"res{stage}a.conv_a", f"res{stage}a.bn_a", f"res{stage}a.relu_a"],
            [f"{t}_conv1", f"{t}_bn1", f"{t}_relu"])


STRIDE = ("the stride-2 of the stage's first block: the zoo (He et al. 2016) puts it on the "
          "1x1 conv_a, torchvision ('v1.5') on the 3x3 conv, so conv1/bn1/relu run on the "
          "4x larger map")
SOFTMAX = "the zoo ends with a softmax (prob); torchvision's model returns logits"
ADAPTIVE = ("torchvision's AdaptiveAvgPool2d, an identity on 224x224 inputs (output = input "
            "size), imported as a 1x1 pool: one FLOP per value")
# (torchvision name, zoo model, [(zoo layers, torchvision layers, reason)]): the only
# differences allowed.
EXPECTED = [
    ("resnet50", "resnet50",
     [(*first_blocks(3), STRIDE), (*first_blocks(4), STRIDE), (*first_blocks(5), STRIDE),
      (["prob"], [], SOFTMAX)]),
    ("vgg16", "vgg16", [([], ["avgpool"], ADAPTIVE), (["prob"], [], SOFTMAX)]),
    ("alexnet", "alexnet_1tower", [([], ["avgpool"], ADAPTIVE), (["prob"], [], SOFTMAX)]),
]


def fmt(n):
    return f"{n:,}"


def signed(n):
    return ("+" if n > 0 else "") + f"{n:,}" if n else "0"


def compare(tmp, tv_name, zoo_name, expected):
    path = os.path.join(tmp, tv_name + ".yaml")
    subprocess.run([sys.executable, IMPORTER, tv_name, path], check=True, capture_output=True)
    zoo, zt = describe(zoo_name)
    imp, it = describe(path)
    want_params = sum(p.numel() for p in
                      torchvision.models.get_model(tv_name, weights=None).parameters())
    check(it["params"] == want_params,
          f"{tv_name}: imported {it['params']} parameters, the module has {want_params}")
    diffs = differences(zoo, imp)
    got = [([l["name"] for l in z], [l["name"] for l in i]) for z, i in diffs]
    # difflib may merge neighbouring blocks; compare the union of differing layers per side
    want_zoo = [n for z, _, _ in expected for n in z]
    want_imp = [n for _, i, _ in expected for n in i]
    got_zoo = [n for z, _ in got for n in z]
    got_imp = [n for _, i in got for n in i]
    check(got_zoo == want_zoo and got_imp == want_imp,
          f"{tv_name} vs zoo {zoo_name}: differing layers {got}, expected "
          f"{[(z, i) for z, i, _ in expected]}")
    # Totals differ by exactly the listed layers.
    by_name_zoo = {l["name"]: l for l in zoo}
    by_name_imp = {l["name"]: l for l in imp}
    rows = []
    for z, i, why in expected:
        d = {k: sum(by_name_imp[n][k] for n in i if n in by_name_imp) -
             sum(by_name_zoo[n][k] for n in z if n in by_name_zoo)
             for k in ("params", "fwd", "bwd_in", "bwd_w")}
        rows.append((z, i, why, d))
    for k in ("params", "fwd", "bwd_in", "bwd_w"):
        check(it[k] - zt[k] == sum(d[k] for *_, d in rows),
              f"{tv_name}: total {k} differs by {it[k] - zt[k]}, the listed layers by "
              f"{sum(d[k] for *_, d in rows)}")
    return zt, it, rows


def stride_closed_form():
    """ResNet-50's stride placement in closed form, per sample: for stage s (input width
    c_in, bottleneck width mid, output side h) torchvision's conv1 + bn1 + relu run on a
    (2h)^2 map instead of h^2: conv 2*c_in*mid*3h^2, batch norm 8*mid*3h^2, relu mid*3h^2."""
    fwd = bwd_in = bwd_w = 0
    for c_in, mid, h in ((256, 128, 28), (512, 256, 14), (1024, 512, 7)):
        extra = 3 * h * h  # (2h)^2 - h^2
        conv = 2 * c_in * mid * extra
        fwd += conv + 8 * mid * extra + mid * extra
        bwd_in += conv + 5 * mid * extra + mid * extra
        bwd_w += conv + 3 * mid * extra
    return fwd, bwd_in, bwd_w


def main():
    tmp = tempfile.mkdtemp(prefix="trainvp_torch_")
    atexit.register(shutil.rmtree, tmp, True)  # its imported models and runs
    md = ["## PyTorch models imported: torchvision against the zoo", "",
          "Generated by `tests/tools/test_import_torch.py SOURCE_DIR TRAINVP --write` (ctest "
          "`tools.import_torch` checks it): torchvision "
          f"{torchvision.__version__.split('+')[0]} models (weights=None) imported by "
          "`tools/import_torch_model.py`, against the zoo's model files, as trainvp's loader "
          "counts them (`trainvp describe zoo.X --markdown`). FLOPs per sample (batch 1), a "
          "multiply-add is 2; every difference is listed with the layers that make it.", "",
          "| torchvision | zoo model | params (torchvision / zoo) | forward FLOPs (torchvision "
          "/ zoo) | backward FLOPs (torchvision / zoo) | difference explained by |",
          "|---|---|---|---|---|---|"]
    detail = []
    for tv, zoo_name, expected in EXPECTED:
        zt, it, rows = compare(tmp, tv, zoo_name, expected)
        bt, bz = it["bwd_in"] + it["bwd_w"], zt["bwd_in"] + zt["bwd_w"]
        reasons = "; ".join(f"{'+'.join(i) or '-'} vs {'+'.join(z) or '-'}: "
                            f"{signed(d['fwd'])} fwd" for z, i, _, d in rows)
        md.append(f"| `{tv}` | `{zoo_name}` | {fmt(it['params'])} / {fmt(zt['params'])} | "
                  f"{fmt(it['fwd'])} / {fmt(zt['fwd'])} ({signed(it['fwd'] - zt['fwd'])}) | "
                  f"{fmt(bt)} / {fmt(bz)} ({signed(bt - bz)}) | {reasons} |")
        for z, i, why, d in rows:
            detail.append(f"| `{tv}` | {', '.join(i) or '—'} | {', '.join(z) or '—'} | "
                          f"{signed(d['params'])} | {signed(d['fwd'])} | "
                          f"{signed(d['bwd_in'] + d['bwd_w'])} | {why} |")
        if tv == "resnet50":
            fwd, bwd_in, bwd_w = stride_closed_form()
            got = [sum(d[k] for z, i, why, d in rows if why == STRIDE)
                   for k in ("fwd", "bwd_in", "bwd_w")]
            check(got == [fwd, bwd_in, bwd_w],
                  f"resnet50 stride placement: {got}, closed form {[fwd, bwd_in, bwd_w]}")
    _, two_tower = describe("alexnet")
    _, tv_alex = describe(os.path.join(tmp, "alexnet.yaml"))
    check(two_tower["params"] == 60965224 and tv_alex["params"] == 61100840,
          f"AlexNet: {tv_alex['params']} vs two-tower {two_tower['params']}")
    md.append(f"| `alexnet` | `alexnet` | {fmt(tv_alex['params'])} / "
              f"{fmt(two_tower['params'])} | {fmt(tv_alex['fwd'])} / {fmt(two_tower['fwd'])} | "
              f"| a different network: the zoo's `alexnet` is Krizhevsky et al.'s two-tower "
              f"original (96-256-384-384-256 filters, grouped conv2/4/5, LRN); torchvision's "
              f"is the one-tower variant (64-192-384-256-256), the zoo's `alexnet_1tower` |")
    md += ["", "The differing layers (torchvision minus zoo, per sample):", "",
           "| torchvision | torchvision layers | zoo layers | params | forward FLOPs | "
           "backward FLOPs | why |", "|---|---|---|---|---|---|---|"] + detail
    fwd, bwd_in, bwd_w = stride_closed_form()
    md += ["", f"ResNet-50's stride placement in closed form (stages 3-5: conv1, bn1 and relu of "
           f"the first block on a (2h)² instead of an h² map): forward {fmt(fwd)} FLOPs, backward "
           f"{fmt(bwd_in + bwd_w)}; the test checks the layers' difference equals it."]

    # 2. The committed ViT-B/16 is what the importer writes.
    vit = os.path.join(tmp, "vit_b_16.yaml")
    os.makedirs(os.path.join(tmp, "configs/examples/models"), exist_ok=True)
    r = subprocess.run([sys.executable, IMPORTER, "vit_b_16",
                        "configs/examples/models/vit_b_16.yaml"], cwd=tmp, capture_output=True,
                       text=True)
    check(r.returncode == 0, f"importing vit_b_16: {r.stderr}")
    os.replace(os.path.join(tmp, "configs/examples/models/vit_b_16.yaml"), vit)
    committed = os.path.join(SRC, "configs/examples/models/vit_b_16.yaml")
    check(open(vit).read() == open(committed).read(),
          "configs/examples/models/vit_b_16.yaml is stale: rerun "
          "python3 tools/import_torch_model.py vit_b_16 configs/examples/models/vit_b_16.yaml")

    # 3. ViT-B/16 trains on star5's platform.
    _, vt = describe("configs/examples/models/vit_b_16.yaml")
    check(vt["params"] == 86567656, f"vit_b_16: {vt['params']} parameters")
    out = os.path.join(tmp, "run")
    r = subprocess.run([TRAINVP, "run", "configs/examples/torch_vit_star5.yaml", "--quiet",
                        "--out", out], cwd=SRC, capture_output=True, text=True)
    check(r.returncode == 0, f"trainvp run torch_vit_star5.yaml: exit {r.returncode} {r.stderr}")
    if r.returncode == 0:
        stats = json.load(open(os.path.join(out, "stats.json")))
        check(stats["run"]["status"] == "finished", f"status {stats['run']['status']}")
        batch = 16
        for w in range(4):
            h = stats["blocks"][f"node[{w}].host"]["stats"]
            want = batch * (vt["fwd"] + vt["bwd_in"] + vt["bwd_w"])
            check(h["flops"]["value"] == want,
                  f"node[{w}].host computes {h['flops']['value']} FLOPs, want {want}")
            check(h["bytes_sent"]["value"] == 4 * vt["params"],
                  f"node[{w}].host sends {h['bytes_sent']['value']} B, want {4 * vt['params']}")
        t = stats["run"]["sim_time_ps"] / 1e9
        md += ["", f"A model the zoo does not have: torchvision's `vit_b_16` "
               f"(configs/examples/models/vit_b_16.yaml, {fmt(vt['params'])} parameters, "
               f"{vt['fwd'] / 1e9:.2f} GFLOP forward per sample) trains on star5's platform "
               f"(`trainvp run configs/examples/torch_vit_star5.yaml`: 4 workers + 1 "
               f"aggregator, batch {batch}, worker-aggregator exchange): each worker computes "
               f"{fmt(want)} FLOPs (batch x the file's forward + backward) and sends "
               f"{fmt(4 * vt['params'])} B of gradient (4 B per parameter), as the test checks."]
        print(f"torch_vit_star5: iteration {t:.1f} ms")

    # 4. docs/validation.md's section.
    text = "\n".join(md) + "\n"
    print(text)
    doc = os.path.join(SRC, "docs", "validation.md")
    if WRITE:
        replace_section("torch-import", text, doc)
    else:
        begin = "<!-- BEGIN torch-import -->"
        d = open(doc).read()
        check(begin in d and text.strip() in d,
              "docs/validation.md's torch-import section is stale: rerun with --write")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("import_torch: all checks pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
