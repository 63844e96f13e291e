#!/usr/bin/env python3
"""Upload the day's sales lines from the PayFlow till export to Severn Books.

Run nightly from cron (23:15). See README.md.
"""
import csv
import json
import sys
import time
import urllib.request
from pathlib import Path

CONFIG = json.loads((Path(__file__).parent / "config.json").read_text())

# Severn's endpoint rejects batches over 250 lines with HTTP 413 (found out the
# hard way on Saturday 9 March 2024, Mother's Day weekend), so we chunk at 200.
BATCH_SIZE = CONFIG.get("batch_size", 200)


def read_sales(day):
    path = Path(CONFIG["till_export_dir"]) / f"sales-{day}.csv"
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f) if row["type"] == "sale"]


def post(lines):
    body = json.dumps({"shop_id": CONFIG["shop_id"], "lines": lines}).encode()
    req = urllib.request.Request(CONFIG["endpoint"], data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.status


def main(day):
    lines = read_sales(day)
    if not lines:
        print(f"nothing to upload for {day}")
        return 0
    for start in range(0, len(lines), BATCH_SIZE):
        batch = lines[start:start + BATCH_SIZE]
        for attempt in range(CONFIG["max_retries"]):
            try:
                post(batch)
                break
            except OSError:
                # back off 2, 4, 8 seconds between retries
                time.sleep(2 ** (attempt + 1))
        else:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
