#!/bin/sh
# Entry point of the helpdesk-worker image: the first argument names the role, so one image serves every process.
#
#   docker run IMAGE agent-worker | poller | sender | scheduler | dashboard | all
#   docker run IMAGE reindex [--queue [--wait]] [--manual-only | --qa-only] [--json]
#   docker run IMAGE review … | ask "…" | search manual|qa "…"
#
# Each role runs the same TypeScript entry file as `npm run <role>`, with `node --import tsx` (no build step, so
# the image runs exactly the sources that were tested). `exec` replaces this shell with node, so the SIGTERM of
# `docker stop` reaches the role's own shutdown handler, which lets running jobs finish before the process exits.
set -eu

run() {
  entry=$1
  shift
  exec node --import tsx "$entry" "$@"
}

usage() {
  cat <<'EOF'
usage: docker run IMAGE ROLE [ARGS…]

long-running roles:
  agent-worker   answers tickets with the help-desk agent (scale out with more containers)
  poller         watches the support mailbox over IMAP and queues each mail
  sender         mails drafted and approved replies over SMTP
  scheduler      runs the reindex jobs and keeps their cron schedules (REINDEX_*_CRON)
  dashboard      review page, JSON API, Bull Board, /healthz, /readyz, /metrics on DASHBOARD_PORT
  all            poller, agent worker and sender in one process

commands:
  reindex        rebuild the search indexes (--queue hands the job to the scheduler; --wait waits for it)
  review         list, approve, edit or reject parked drafts
  ask            ask the agent one question
  search         search the manual or the Q&A pairs

Anything else is run as a command (e.g. `sh` for a shell inside the image).
EOF
}

role=${1:-help}
[ "$#" -gt 0 ] && shift

case "$role" in
  agent-worker) run workers/agent-worker.ts "$@" ;;
  poller | imap-poller) run workers/imap-poller.ts "$@" ;;
  sender) run workers/sender.ts "$@" ;;
  scheduler) run workers/scheduler.ts "$@" ;;
  dashboard) run workers/dashboard.ts "$@" ;;
  all) run workers/all.ts "$@" ;;
  reindex | review | ask | search) run "src/cli/$role.ts" "$@" ;;
  help | -h | --help)
    usage
    ;;
  *)
    if command -v "$role" >/dev/null 2>&1; then
      exec "$role" "$@"
    fi
    echo "helpdesk-worker: unknown role '$role'" >&2
    usage >&2
    exit 64
    ;;
esac
