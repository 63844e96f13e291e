#!/usr/bin/env python3
"""A media scale set with known words: voice memos and screen recordings.

    benches/media-set/generate.py OUT [--minutes 9] [--seed 7] [--screen 2] [--screen-share 0.15]

Writes OUT/profile/ (the recordings) and OUT/truth.json (what each one says and shows).
Voice memos are sentences spoken by espeak-ng in several voices and speeds, with short
and long pauses (so VAD has work), encoded as mp3, m4a and wav in turn. Screen
recordings (mp4, H.264) show slides of a few lines of text (ffmpeg `drawtext`), each for
several seconds, with a still pause between some of them; one of them also has a spoken
track. `--minutes` is the total length (about 85 % speech, the rest screen recordings;
`--screen-share` sets the screen recordings' share).
Deterministic for a seed (the texts and their order; the encoders' bytes depend on the
ffmpeg and espeak-ng versions). Needs espeak-ng and ffmpeg; standard library only.

truth.json: {"files": {PATH: {"kind": "speech" | "screen", "seconds", "words": TEXT,
"lines": [TEXT]}}, "seconds": TOTAL}: `words` is everything spoken, `lines` every
line shown on screen. Score an index of it with `score.py`.
"""
import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RATE = 16000
VOICES = ["en-us", "en-gb", "en-gb-scotland", "en-029", "en-gb-x-rp", "en-us+f3"]
CONTAINERS = ["mp3", "m4a", "wav"]

PEOPLE = ["Maria", "Ben", "Priya", "Tom", "Aisha", "Liam", "Chen", "Sofia", "Omar", "Grace"]
PLACES = ["the library", "the station", "the clinic", "the office", "the market",
          "the school", "the harbour", "the bakery", "the garage", "the museum"]
THINGS = ["the invoice", "the report", "the tickets", "the keys", "the budget",
          "the contract", "the photos", "the recipe", "the schedule", "the parcel"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
ORDINALS = ["first", "second", "third", "fifth", "ninth", "twelfth", "twentieth",
            "twenty-first", "thirtieth"]
NUMBERS = ["twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty",
           "seventy", "eighty", "ninety", "one hundred"]
TEMPLATES = [
    "Remember to send {thing} to {person} before {day}.",
    "{person} said the meeting at {place} moved to {day} morning.",
    "I paid {number} dollars for {thing} on {day}.",
    "Pick up {thing} from {place} after work on {day}.",
    "The appointment at {place} is on the {ordinal} of {month}.",
    "{person} needs {thing} by the end of {month}.",
    "We agreed to meet {person} outside {place} at {number} past nine.",
    "Call {person} about {thing} and ask about the price.",
    "The train from {place} leaves at half past {number} on {day}.",
    "Note to self, {thing} went into the blue folder at {place}.",
]
SLIDE_TITLES = ["Quarterly review", "Project timeline", "Budget summary", "Team notes",
                "Travel plan", "Reading list", "Release checklist", "Garden plan"]
SLIDE_LINES = [
    "Revenue grew {number} percent in {month}",
    "Next review with {person} on {day}",
    "Deadline moved to the end of {month}",
    "Order {number} new chairs for {place}",
    "{person} owns the vendor contract",
    "Book rooms near {place} for {month}",
    "Ship version {number} after testing",
    "Plant tomatoes in {month}",
]


def fill(template, rng):
    return template.format(person=rng.choice(PEOPLE), place=rng.choice(PLACES),
                           thing=rng.choice(THINGS), day=rng.choice(DAYS),
                           month=rng.choice(MONTHS), number=rng.choice(NUMBERS),
                           ordinal=rng.choice(ORDINALS))


def need(tool):
    if shutil.which(tool) is None:
        sys.exit(f"{tool} is needed (apt-get install {tool})")


def speak(text, voice, speed, out_wav):
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(out_wav), text],
                   check=True, stdout=subprocess.DEVNULL)


def to_pcm(wav, tmp):
    """16 kHz mono s16le bytes of a wav file."""
    raw = Path(tmp) / "pcm.raw"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(wav), "-ac", "1", "-ar", str(RATE),
                    "-f", "s16le", str(raw)], check=True)
    return raw.read_bytes()


def silence(seconds):
    return b"\x00\x00" * int(RATE * seconds)


def speech_track(sentences, voice, speed, rng, tmp):
    """PCM of the sentences with pauses (mostly short, sometimes long)."""
    pcm = bytearray(silence(0.5))
    for i, sentence in enumerate(sentences):
        wav = Path(tmp) / f"s{i}.wav"
        speak(sentence, voice, speed, wav)
        pcm += to_pcm(wav, tmp)
        pcm += silence(rng.choice([0.3, 0.4, 0.5, 0.6, 2.5]))
    return bytes(pcm)


def encode_audio(pcm, out, tmp):
    raw = Path(tmp) / "track.raw"
    raw.write_bytes(pcm)
    codec = {"mp3": ["-c:a", "libmp3lame", "-b:a", "64k"],
             "m4a": ["-c:a", "aac", "-b:a", "64k"],
             "wav": ["-c:a", "pcm_s16le"]}[out.suffix[1:]]
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "s16le", "-ar", str(RATE), "-ac", "1",
                    "-i", str(raw)] + codec + [str(out)], check=True)


def voice_memos(profile, seconds, rng, truth, tmp):
    n = 0
    spent = 0.0
    while spent < seconds:
        n += 1
        count = rng.randint(3, 9)
        sentences = [fill(rng.choice(TEMPLATES), rng) for _ in range(count)]
        voice = VOICES[(n - 1) % len(VOICES)]
        speed = rng.choice([145, 160, 175])
        pcm = speech_track(sentences, voice, speed, rng, tmp)
        length = len(pcm) / 2 / RATE
        ext = CONTAINERS[(n - 1) % len(CONTAINERS)]
        rel = f"Voice Memos/memo {n:02d}.{ext}"
        out = profile / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        encode_audio(pcm, out, tmp)
        truth[rel] = {"kind": "speech", "seconds": round(length, 2), "voice": voice,
                      "words": " ".join(sentences), "lines": []}
        spent += length


def escape(text):
    return text.replace("\\", "\\\\").replace(":", "\\:").replace("'", "\u2019")


def screen_recording(profile, index, seconds, rng, truth, tmp, spoken):
    """Slides of a title and three lines, 6–10 s each, some followed by a blank still."""
    rel = f"Videos/screen recording {index:02d}.mp4"
    out = profile / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    slides, t, lines_all = [], 0.0, []
    while t < seconds:
        title = rng.choice(SLIDE_TITLES)
        lines = [fill(rng.choice(SLIDE_LINES), rng) for _ in range(3)]
        length = rng.choice([6, 8, 10])
        slides.append((t, min(t + length, seconds), title, lines))
        lines_all.extend([title] + lines)
        t += length + rng.choice([0, 0, 3])
    filters = []
    for i, (start, end, title, lines) in enumerate(slides):
        enable = f"enable='between(t,{start},{end - 0.01})'"
        for j, text in enumerate([title] + lines):
            size = 56 if j == 0 else 40
            y = 120 + j * 110
            filters.append(f"drawtext=text='{escape(text)}':fontcolor=black:fontsize={size}:"
                           f"x=100:y={y}:{enable}")
    video = ["-f", "lavfi", "-i", f"color=c=white:s=1280x720:r=25:d={seconds}"]
    audio, words = [], ""
    if spoken:
        sentences = [fill(rng.choice(TEMPLATES), rng) for _ in range(max(3, int(seconds / 6)))]
        pcm = speech_track(sentences, "en-gb", 160, rng, tmp)[: int(seconds * RATE) * 2]
        # The track lasts as long as the picture (silence after the speech).
        pcm += silence(seconds - len(pcm) / 2 / RATE)
        raw = Path(tmp) / "screen.raw"
        raw.write_bytes(pcm)
        audio = ["-f", "s16le", "-ar", str(RATE), "-ac", "1", "-i", str(raw)]
        words = " ".join(sentences)
    script = Path(tmp) / "filters.txt"
    script.write_text(",".join(filters))
    command = ["ffmpeg", "-v", "error", "-y"] + video + audio + [
        "-filter_script:v", str(script), "-c:v", "libx264", "-preset", "veryfast",
        "-pix_fmt", "yuv420p"]
    if audio:
        command += ["-c:a", "aac", "-b:a", "64k"]
    subprocess.run(command + [str(out)], check=True)
    truth[rel] = {"kind": "screen", "seconds": seconds, "words": words, "lines": lines_all}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--minutes", type=float, default=9.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--screen", type=int, default=2, help="screen recordings")
    parser.add_argument("--screen-share", type=float, default=0.15,
                        help="share of --minutes in screen recordings")
    args = parser.parse_args()
    need("espeak-ng")
    need("ffmpeg")
    rng = random.Random(args.seed)
    profile = args.out / "profile"
    if profile.exists():
        shutil.rmtree(profile)
    profile.mkdir(parents=True)
    truth = {}
    total = args.minutes * 60
    screen_total = total * args.screen_share if args.screen else 0.0
    with tempfile.TemporaryDirectory() as tmp:
        voice_memos(profile, total - screen_total, rng, truth, tmp)
        for i in range(args.screen):
            length = max(20, int(screen_total / args.screen))
            screen_recording(profile, i + 1, length, rng, truth, tmp, spoken=(i == 0))
    seconds = round(sum(f["seconds"] for f in truth.values()), 1)
    (args.out / "truth.json").write_text(json.dumps({"files": truth, "seconds": seconds},
                                                    indent=1) + "\n")
    print(f"{args.out}: {len(truth)} recordings, {seconds / 60:.1f} min", file=sys.stderr)


if __name__ == "__main__":
    main()
