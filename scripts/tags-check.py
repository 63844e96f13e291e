#!/usr/bin/env python3
"""Dev check of the image-tag classifier made by scripts/convert-efficientnet (not a test).

Usage:
    python scripts/tags-check.py [--models models/tags] [--threads 1] [--reference PTH]
                                 [--norm tf|torchvision] IMAGE...

Loads <models>/efficientnet_lite0.onnx with ONNX Runtime and <models>/imagenet_classes.tsv,
resizes each image to 224x224 (whole picture, bilinear, no crop; EXIF orientation applied),
normalises it as the ONNX contract says ((x - 127) / 128, or with --norm torchvision the
ImageNet mean/std, only to compare), and prints the top-5 classes with their softmax
probabilities and the mean inference time per image over a few runs.

--reference PTH also runs a plain numpy forward pass of the original checkpoint (BatchNorm
not folded, TF "SAME" zero padding done by hand) and prints the largest difference of the
logits and features from the ONNX graph's.

Needs numpy, onnx, onnxruntime and pillow (a dev venv, not the project's runtime).
"""

import argparse
import importlib.machinery
import importlib.util
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image, ImageOps

HERE = Path(__file__).resolve().parent


def load_image(path, norm):
    img = ImageOps.exif_transpose(Image.open(path)).convert("RGB").resize((224, 224), Image.BILINEAR)
    x = np.asarray(img, dtype=np.float32)
    if norm == "tf":
        x = (x - 127.0) / 128.0
    else:
        x = (x / 255.0 - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def converter():
    loader = importlib.machinery.SourceFileLoader("convert_efficientnet", str(HERE / "convert-efficientnet"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def reference_forward(conv_mod, sd, x):
    """Unfolded forward pass of the state dict in numpy (float64), for one image [1,3,H,W]."""

    def bn(x, p):
        g, b, m, v = (sd[f"{p}.{n}"].astype(np.float64) for n in ("weight", "bias", "running_mean", "running_var"))
        return (x - m[:, None, None]) / np.sqrt(v[:, None, None] + conv_mod.BN_EPS) * g[:, None, None] + b[:, None, None]

    def conv(x, w, stride=1, depthwise=False):
        c, h, _ = x.shape
        k = w.shape[-1]
        pb, pe, out = conv_mod.same_pads(h, k, stride)
        xp = np.pad(x, ((0, 0), (pb, pe), (pb, pe)))
        if depthwise:
            y = np.zeros((c, out, out))
            for i in range(k):
                for j in range(k):
                    y += w[:, 0, i, j][:, None, None] * xp[:, i : i + stride * out : stride, j : j + stride * out : stride]
            return y
        cols = np.stack(
            [xp[:, i : i + stride * out : stride, j : j + stride * out : stride] for i in range(k) for j in range(k)], 1
        )  # [C, k*k, out, out]
        return np.einsum("ock,ckxy->oxy", w.reshape(w.shape[0], c, k * k), cols)

    relu6 = lambda t: np.clip(t, 0, 6)
    w = lambda n: sd[n].astype(np.float64)
    h = relu6(bn(conv(x[0].astype(np.float64), w("_conv_stem.weight"), 2), "_bn0"))
    for i, (_k, s, e, cin, cout) in enumerate(conv_mod.lite0_blocks()):
        p = f"_blocks.{i}"
        inp = h
        if e != 1:
            h = relu6(bn(conv(h, w(f"{p}._expand_conv.weight")), f"{p}._bn0"))
        h = relu6(bn(conv(h, w(f"{p}._depthwise_conv.weight"), s, depthwise=True), f"{p}._bn1"))
        h = bn(conv(h, w(f"{p}._project_conv.weight")), f"{p}._bn2")
        if s == 1 and cin == cout:
            h = h + inp
    h = relu6(bn(conv(h, w("_conv_head.weight")), "_bn1"))
    feats = h.mean(axis=(1, 2))
    logits = w("_fc.weight") @ feats + w("_fc.bias")
    return logits[None], feats[None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("images", nargs="+")
    ap.add_argument("--models", default=str(HERE.parent / "models" / "tags"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--norm", choices=["tf", "torchvision"], default="tf")
    ap.add_argument("--reference", metavar="PTH")
    args = ap.parse_args()

    models = Path(args.models)
    classes = [line.split("\t") for line in (models / "imagenet_classes.tsv").read_text().splitlines()]
    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    t0 = time.perf_counter()
    sess = ort.InferenceSession(str(models / "efficientnet_lite0.onnx"), so, providers=["CPUExecutionProvider"])
    print(f"session load {1000 * (time.perf_counter() - t0):.0f} ms, {args.threads} thread(s)")
    ref = None
    if args.reference:
        mod = converter()
        ref = (mod, mod.load_state_dict(args.reference))

    times = []
    for path in args.images:
        x = load_image(path, args.norm)
        logits, feats = sess.run(["logits", "features"], {"image": x})
        for _ in range(args.runs):
            t0 = time.perf_counter()
            sess.run(["logits", "features"], {"image": x})
            times.append(time.perf_counter() - t0)
        p = np.exp(logits[0] - logits[0].max())
        p /= p.sum()
        print(f"\n{path}")
        for i in np.argsort(-p)[:5]:
            idx, wnid, names = classes[i]
            print(f"  {p[i]:6.3f}  {idx:>3} {wnid}  {names}")
        if ref:
            rl, rf = reference_forward(ref[0], ref[1], x)
            print(f"  reference: max |d logits| {np.abs(rl - logits).max():.2e}, max |d features| {np.abs(rf - feats).max():.2e}")
    times.sort()
    print(f"\nONNX Runtime: median {1000 * times[len(times) // 2]:.1f} ms, min {1000 * times[0]:.1f} ms per image")


if __name__ == "__main__":
    main()
