#!/usr/bin/env python3
"""Development check for the Whisper ONNX graphs written by scripts/convert-whisper.

Not used by Dentate at run time: it is a reference for the Rust decoding loop and a quick
way to confirm that encoder.onnx / decoder.onnx transcribe correctly.

Reads a 16 kHz mono 16-bit PCM WAV (convert other audio with
`ffmpeg -i IN -ar 16000 -ac 1 -f wav OUT.wav`), keeps the first 30 s, zero-pads to
480000 samples, runs the encoder and greedy decoding with the KV-cache decoder through
onnxruntime (CPU, intra_op_num_threads=1 by default), and prints the text in plain mode
(prompt <|startoftranscript|><|notimestamps|>) and in timestamp mode (prompt
<|startoftranscript|> only; segments with times), plus timings.

English-only (.en) and multilingual models both work; the model is multilingual when its
vocabulary has >= 51865 tokens (as openai-whisper decides). Special token ids are looked up
by name in tokenizer.json (multilingual ids are one higher than .en ones), and the first
timestamp token is <|notimestamps|> + 1. A multilingual model gets the prompt
<|startoftranscript|><|LANG|><|transcribe|> (+ <|notimestamps|> in plain mode), where LANG
is --language, or else detected: one decoder step after <|startoftranscript|>, argmax of
the logits over the language tokens (the tokens between <|startoftranscript|> and
<|translate|>). The KV-cache sizes (layers, heads, head size) are read from the decoder
graph's self_k input (and checked against <models>/dims.json when present).

Usage:
    python3 scripts/whisper-check.py AUDIO.wav [--models models/whisper-tiny-en]
                                     [--mode plain|timestamps|both] [--threads 1]
                                     [--language fr]

Needs numpy and onnxruntime.
"""

import argparse
import json
import time
import wave
from pathlib import Path

import numpy as np
import onnxruntime as ort

N_SAMPLES = 480000
N_TEXT_CTX = 448
MAX_NEW_TOKENS = N_TEXT_CTX // 2  # Whisper's default sample_len
MAX_INITIAL_TIMESTAMP = 1.0  # seconds


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable unicode character map."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Tokenizer:
    def __init__(self, ct2_dir):
        tok = json.loads((ct2_dir / "tokenizer.json").read_text(encoding="utf-8"))
        self.id_to_token = {i: t for t, i in tok["model"]["vocab"].items()}
        for added in tok["added_tokens"]:
            self.id_to_token[added["id"]] = added["content"]
        self.special = {t: i for i, t in self.id_to_token.items() if t.startswith("<|")}
        # tokenizer.json has no timestamp tokens; vocabulary.txt (line n = id n) does
        vocab = (ct2_dir / "vocabulary.txt").read_text(encoding="utf-8").splitlines()
        self.n_vocab = len(vocab)
        self.multilingual = self.n_vocab >= 51865
        self.byte_decoder = {c: b for b, c in bytes_to_unicode().items()}

        config = json.loads((ct2_dir / "config.json").read_text(encoding="utf-8"))
        self.suppress_ids = config["suppress_ids"]
        self.suppress_ids_begin = config["suppress_ids_begin"]
        self.eot = self.special["<|endoftext|>"]
        self.sot = self.special["<|startoftranscript|>"]
        self.no_timestamps = self.special["<|notimestamps|>"]
        self.no_speech = self.special.get("<|nocaptions|>", self.special.get("<|nospeech|>"))
        self.transcribe = self.special["<|transcribe|>"]
        self.translate = self.special["<|translate|>"]
        self.timestamp_begin = self.no_timestamps + 1
        if vocab[self.timestamp_begin] != "<|0.00|>":
            raise SystemExit(f"vocabulary.txt: id {self.timestamp_begin} is {vocab[self.timestamp_begin]!r}, not <|0.00|>")
        # language tokens <|en|>, <|zh|>, ...: the specials between sot and translate
        self.languages = {t[2:-2]: i for t, i in self.special.items() if self.sot < i < self.translate}
        # (config.json's lang_ids are only meaningful for multilingual models: the tiny.en
        # package lists multilingual ids there, which are off by one for its vocabulary)
        if self.multilingual and sorted(self.languages.values()) != sorted(config.get("lang_ids", [])):
            print("warning: config.json lang_ids differ from the language tokens in tokenizer.json")

    def language_name(self, token):
        return self.id_to_token[token][2:-2]

    def decode(self, ids):
        ids = [i for i in ids if i < self.eot]
        data = bytes(self.byte_decoder[c] for i in ids for c in self.id_to_token[i])
        return data.decode("utf-8", errors="replace")


def read_wav(path):
    with wave.open(str(path), "rb") as w:
        if (w.getframerate(), w.getnchannels(), w.getsampwidth()) != (16000, 1, 2):
            raise SystemExit(
                f"{path}: {w.getframerate()} Hz, {w.getnchannels()} ch, {8 * w.getsampwidth()} bit; "
                "need 16 kHz mono 16-bit (ffmpeg -i IN -ar 16000 -ac 1 -f wav OUT.wav)"
            )
        n = w.getnframes()
        samples = np.frombuffer(w.readframes(min(n, N_SAMPLES)), dtype="<i2").astype(np.float32) / 32768.0
    audio = np.zeros((1, N_SAMPLES), dtype=np.float32)
    audio[0, : len(samples)] = samples
    return audio, n / 16000.0


def log_softmax(x):
    x = x - x.max()
    return x - np.log(np.exp(x).sum())


def apply_timestamp_rules(logits, generated, tok):
    """Whisper's ApplyTimestampRules (decoding.py), for greedy decoding from an empty prefix."""
    tb = tok.timestamp_begin
    logits[tok.no_timestamps] = -np.inf
    last_ts = len(generated) >= 1 and generated[-1] >= tb
    penult_ts = len(generated) < 2 or generated[-2] >= tb
    if last_ts:
        if penult_ts:  # a pair just closed: next must be text (or eot)
            logits[tb:] = -np.inf
        else:  # an opening timestamp: next must be a timestamp (or eot)
            logits[: tok.eot] = -np.inf
    stamps = [t for t in generated if t >= tb]
    if stamps:  # timestamps never go backwards; after a closed pair, strictly forwards
        floor = stamps[-1] if (last_ts and not penult_ts) else stamps[-1] + 1
        logits[tb:floor] = -np.inf
    if not generated:  # first token must be a timestamp, at most MAX_INITIAL_TIMESTAMP
        logits[:tb] = -np.inf
        logits[tb + int(round(MAX_INITIAL_TIMESTAMP / 0.02)) + 1 :] = -np.inf
    logprobs = log_softmax(logits)
    ts_logprob = np.logaddexp.reduce(logprobs[tb:])
    if ts_logprob > logprobs[:tb].max():  # timestamps jointly more likely than any text token
        logits[:tb] = -np.inf
    return logits


def empty_cache(dec):
    """Zero-length self-attention cache [L, 1, H, 0, Dh], sized from the decoder's self_k input."""
    n_layers, _, n_heads, _, head_dim = next(i.shape for i in dec.get_inputs() if i.name == "self_k")
    return np.zeros((n_layers, 1, n_heads, 0, head_dim), dtype=np.float32)  # P = 0


def detect_language(dec, cross_k, cross_v, tok):
    """One decoder step after <|startoftranscript|>; returns (language token, time (s),
    [(code, probability)] for the 3 likeliest languages)."""
    self_k = empty_cache(dec)
    t0 = time.perf_counter()
    logits, _, _ = dec.run(
        None,
        {"token": np.array([[tok.sot]], dtype=np.int64), "self_k": self_k, "self_v": self_k,
         "cross_k": cross_k, "cross_v": cross_v},
    )
    elapsed = time.perf_counter() - t0
    ids = np.array(sorted(tok.languages.values()))
    lang_logits = logits[0, ids].astype(np.float64)
    probs = np.exp(log_softmax(lang_logits))
    top = np.argsort(-probs)[:3]
    return int(ids[top[0]]), elapsed, [(tok.language_name(int(ids[i])), float(probs[i])) for i in top]


def transcribe(dec, cross_k, cross_v, tok, timestamps, language=None):
    """Greedy decoding. `language` (a language token id) is required for multilingual
    models and ignored for .en ones."""
    prompt = [tok.sot]
    if tok.multilingual:
        prompt += [language, tok.transcribe]
    if not timestamps:
        prompt.append(tok.no_timestamps)
    self_k = empty_cache(dec)
    self_v = self_k
    generated, times = [], []
    no_speech_prob = None
    feed = list(prompt)
    while True:
        token = feed.pop(0) if feed else generated[-1]
        t0 = time.perf_counter()
        logits, self_k, self_v = dec.run(
            None,
            {"token": np.array([[token]], dtype=np.int64), "self_k": self_k, "self_v": self_v,
             "cross_k": cross_k, "cross_v": cross_v},
        )
        times.append(time.perf_counter() - t0)
        logits = logits[0].astype(np.float64)
        if no_speech_prob is None:  # the output at <|startoftranscript|> (the first call)
            no_speech_prob = float(np.exp(log_softmax(logits)[tok.no_speech]))
        if feed:
            continue
        logits[tok.suppress_ids] = -np.inf
        if not generated:
            logits[tok.suppress_ids_begin] = -np.inf
        if timestamps:
            logits = apply_timestamp_rules(logits, generated, tok)
        else:
            logits[tok.timestamp_begin:] = -np.inf
            logits[tok.no_timestamps] = -np.inf
        nxt = int(np.argmax(logits))
        if nxt == tok.eot or len(generated) >= MAX_NEW_TOKENS or self_k.shape[3] >= N_TEXT_CTX:
            break
        generated.append(nxt)
    return generated, times, no_speech_prob


def segments(ids, tok):
    tb = tok.timestamp_begin
    out, start, text = [], None, []
    for t in ids:
        if t >= tb:
            if start is None:
                start = (t - tb) * 0.02
            else:
                out.append((start, (t - tb) * 0.02, tok.decode(text)))
                start, text = None, []
        else:
            text.append(t)
    if text:
        out.append((start or 0.0, None, tok.decode(text)))
    return out


def main():
    parser = argparse.ArgumentParser(description="Whisper ONNX dev check")
    parser.add_argument("wav", type=Path)
    parser.add_argument("--models", type=Path, default=Path(__file__).resolve().parent.parent / "models" / "whisper-tiny-en")
    parser.add_argument("--mode", choices=["plain", "timestamps", "both"], default="both")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--language", help="language code for multilingual models (default: detect)")
    args = parser.parse_args()

    tok = Tokenizer(args.models / "ct2")
    print(f"ids: eot={tok.eot} sot={tok.sot} notimestamps={tok.no_timestamps} "
          f"nocaptions(no_speech)={tok.no_speech} timestamp_begin={tok.timestamp_begin} "
          f"translate={tok.translate} transcribe={tok.transcribe} "
          f"startoflm={tok.special['<|startoflm|>']} startofprev={tok.special['<|startofprev|>']} "
          f"en={tok.special['<|en|>']} n_vocab={tok.n_vocab} multilingual={tok.multilingual}")
    language = None
    if args.language is not None:
        if not tok.multilingual:
            raise SystemExit("--language needs a multilingual model")
        if args.language not in tok.languages:
            raise SystemExit(f"unknown language {args.language!r}; known: {' '.join(tok.languages)}")
        language = tok.languages[args.language]

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    opts.inter_op_num_threads = 1
    t0 = time.perf_counter()
    enc = ort.InferenceSession(str(args.models / "encoder.onnx"), opts, providers=["CPUExecutionProvider"])
    dec = ort.InferenceSession(str(args.models / "decoder.onnx"), opts, providers=["CPUExecutionProvider"])
    print(f"session load: {time.perf_counter() - t0:.2f} s")
    cache = empty_cache(dec)
    print(f"kv cache: layers={cache.shape[0]} heads={cache.shape[2]} head_dim={cache.shape[4]}")
    dims_path = args.models / "dims.json"
    if dims_path.exists():
        dims = json.loads(dims_path.read_text(encoding="utf-8"))
        graph = {"n_layers": cache.shape[0], "n_heads": cache.shape[2], "head_dim": cache.shape[4],
                 "n_vocab": tok.n_vocab, "multilingual": tok.multilingual}
        if any(dims.get(k) != v for k, v in graph.items()):
            raise SystemExit(f"{dims_path} says {dims}, but the graphs / vocabulary give {graph}")

    audio, duration = read_wav(args.wav)
    print(f"audio: {duration:.2f} s (using first {min(duration, 30.0):.2f} s)")
    enc_times = []
    for _ in range(3):
        t0 = time.perf_counter()
        cross_k, cross_v = enc.run(None, {"audio": audio})
        enc_times.append(time.perf_counter() - t0)
    print(f"encoder: {' '.join(f'{t * 1000:.0f}' for t in enc_times)} ms (3 runs)")

    if tok.multilingual and language is None:
        language, elapsed, top = detect_language(dec, cross_k, cross_v, tok)
        print(f"language: detected {tok.language_name(language)} in {elapsed * 1000:.1f} ms ("
              + ", ".join(f"{code} {p:.3f}" for code, p in top) + ")")
    elif tok.multilingual:
        print(f"language: {tok.language_name(language)} (given)")

    modes = {"plain": [False], "timestamps": [True], "both": [False, True]}[args.mode]
    for timestamps in modes:
        ids, times, no_speech = transcribe(dec, cross_k, cross_v, tok, timestamps, language)
        steady = sorted(times[1:]) or times
        print(f"\n[{'timestamps' if timestamps else 'plain'}] {len(times)} decoder calls, "
              f"first {times[0] * 1000:.1f} ms, median {steady[len(steady) // 2] * 1000:.1f} ms, "
              f"mean {sum(steady) / len(steady) * 1000:.1f} ms (after the first), "
              f"max {max(times) * 1000:.1f} ms; no_speech_prob={no_speech:.4f}")
        print(f"ids: {ids}")
        if timestamps:
            for start, end, text in segments(ids, tok):
                end_s = f"{end:6.2f}" if end is not None else "   ..."
                print(f"  [{start:6.2f} -> {end_s}] {text}")
        else:
            print(f"text: {tok.decode(ids)}")


if __name__ == "__main__":
    main()
