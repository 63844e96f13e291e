#!/usr/bin/env python3
"""Scores an index of a media scale set (`generate.py`) against its known words.

    benches/media-set/score.py OUT [--bin target/release] [--index DIR] [--json]
                               [--summary SUMMARY.json] [--wall SECONDS]

Starts `dentate-searchd` (lexical only) on the index (default OUT/index), reads every
recording's units over HippoCamp's `/api/return_txt_full/PATH`, and reports:

- word error rate: the speech units of a recording (titles "Speech …", in time order)
  against the words spoken, over all recordings (total edits / total words; lower
  case, punctuation dropped, hyphens as spaces);
- on-screen lines found: the share of the lines shown in screen recordings that appear
  whole in one of the recording's "On screen:" units (same normalisation);
- with `--summary` (the `dentate-index --json` summary of the run) and `--wall`: media
  seconds per wall second (× real time) and per stage the worker seconds and × real time.
Standard library only.
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def words(text):
    text = text.lower().replace("-", " ").replace("\u2019", "'")
    return re.findall(r"[a-z0-9']+", text)


def edits(ref, hyp):
    """Word-level Levenshtein distance."""
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1,
                             previous[j - 1] + (r != h))
        previous = current
    return previous[-1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def units_of(url, path):
    quoted = urllib.parse.quote(path)
    with urllib.request.urlopen(f"{url}/api/return_txt_full/{quoted}", timeout=60) as reply:
        body = json.load(reply)
    if not body.get("success"):
        return []
    return body["data"]["segments"]


def score(truth, url):
    total_edits = total_words = 0
    lines_found = lines_all = 0
    per_file = {}
    for path, facts in truth["files"].items():
        segments = units_of(url, path)
        speech = sorted((s for s in segments if str(s.get("title", "")).startswith("Speech")),
                        key=lambda s: s.get("start_seconds", 0.0))
        screen = [s["content"] for s in segments if s["content"].startswith("On screen:")]
        entry = {"kind": facts["kind"]}
        if facts["words"]:
            ref = words(facts["words"])
            hyp = words(" ".join(s["content"] for s in speech))
            e = edits(ref, hyp)
            total_edits += e
            total_words += len(ref)
            entry["wer"] = round(e / max(len(ref), 1), 4)
        if facts["lines"]:
            shown = [" ".join(words(text)) for text in screen]
            found = sum(any(" ".join(words(line)) in s for s in shown) for line in facts["lines"])
            lines_found += found
            lines_all += len(facts["lines"])
            entry["lines_found"] = f"{found}/{len(facts['lines'])}"
        per_file[path] = entry
    return {
        "wer": round(total_edits / max(total_words, 1), 4),
        "words": total_words,
        "lines_found": round(lines_found / max(lines_all, 1), 4),
        "lines": lines_all,
        "files": per_file,
    }


STAGES = [("decode_seconds", "file decoding"), ("vad_seconds", "VAD"),
          ("asr_encoder_seconds", "Whisper encoder"), ("asr_decoder_seconds", "Whisper decoder"),
          ("ocr_seconds", "frame OCR"), ("tag_seconds", "frame tags")]


def timing(summary, wall, media_seconds):
    media = summary.get("media", {})
    out = {"wall_seconds": wall, "media_seconds": media_seconds,
           "x_real_time": round(media_seconds / wall, 2) if wall else None, "stages": {}}
    for key, label in STAGES:
        seconds = media.get(key, 0.0)
        out["stages"][label] = {"seconds": round(seconds, 2),
                                "x_real_time": round(media_seconds / seconds, 1) if seconds else None}
    out["asr_windows"] = media.get("asr_windows")
    out["frames_ocr"] = media.get("frames_ocr")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--bin", default=os.path.join(ROOT, "target/release"))
    parser.add_argument("--index")
    parser.add_argument("--summary")
    parser.add_argument("--wall", type=float)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(args.out, "truth.json")) as f:
        truth = json.load(f)
    index = args.index or os.path.join(args.out, "index")
    port = free_port()
    daemon = subprocess.Popen(
        [os.path.join(args.bin, "dentate-searchd"), "--index", index,
         "--http-addr", f"127.0.0.1:{port}", "--grpc-addr", f"127.0.0.1:{free_port()}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/health", timeout=2)
                break
            except Exception:
                if time.time() > deadline or daemon.poll() is not None:
                    sys.exit(f"dentate-searchd did not start on {index}")
                time.sleep(0.3)
        result = score(truth, url)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    if args.summary:
        with open(args.summary) as f:
            result["timing"] = timing(json.load(f), args.wall, truth["seconds"])
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"word error rate {result['wer']:.4f} over {result['words']} words; "
          f"on-screen lines found {result['lines_found']:.4f} of {result['lines']}")
    if "timing" in result:
        t = result["timing"]
        if t["wall_seconds"]:
            print(f"{t['media_seconds']:.0f} s of media in {t['wall_seconds']:.1f} s wall: "
                  f"{t['x_real_time']}× real time")
        for label, s in t["stages"].items():
            print(f"  {label:16} {s['seconds']:7.2f} worker s  {s['x_real_time'] or '-'}× real time")


if __name__ == "__main__":
    main()
