#!/bin/bash
# Nightly backup: working SSD -> Synology NAS (kookaburra) -> Backblaze B2.
# Runs from launchd at 01:00 (~/Library/LaunchAgents/au.tahlia.backup.plist).
set -euo pipefail
SRC="/Volumes/Working/Jobs/"
NAS="/Volumes/kookaburra/Jobs/"
LOG="$HOME/Library/Logs/tb-backup.log"

echo "$(date '+%d/%m/%Y %H:%M') start" >> "$LOG"
rsync -a --delete-after --exclude '.DS_Store' "$SRC" "$NAS" >> "$LOG" 2>&1
# offsite copy of the NAS
rclone sync "$NAS" b2:tb-photo-archive/Jobs --transfers 8 --fast-list >> "$LOG" 2>&1
echo "$(date '+%d/%m/%Y %H:%M') done" >> "$LOG"
