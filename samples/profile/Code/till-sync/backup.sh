#!/bin/sh
# Nightly backup of the till database to the NAS in the stock room.
# cron: 45 23 * * *  /home/ros/Code/till-sync/backup.sh
# Keeps 14 days of copies; older ones are deleted.
set -eu
SRC=/srv/payflow/till.db
DEST=ros@lantern-nas.local:/volume1/backups/till
STAMP=$(date +%Y-%m-%d)
rsync -a "$SRC" "$DEST/till-$STAMP.db"
ssh ros@lantern-nas.local "find /volume1/backups/till -name 'till-*.db' -mtime +14 -delete"
echo "backup $STAMP ok"
