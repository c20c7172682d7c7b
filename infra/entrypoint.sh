#!/bin/sh
# Entry point of the helpdesk-worker image: the first argument names the role, so one image serves every process.
#
#   docker run IMAGE agent-worker | poller | sender | scheduler | dashboard | all
#   docker run IMAGE reindex [--queue [--wait]] [--manual-only | --qa-only] [--json]
#   docker run IMAGE review … | knowledge … | ask "…" | search manual|qa "…"
#   docker run IMAGE check                    # reach every server .env names once, as `npm run check`
#
# Each long-running role runs the JavaScript that `npm run build` made of its entry file in the image (dist/), as
# `npm run <role>` does: no tsx loader thread, about 50 MB less memory per process. The one-shot commands run their
# TypeScript through tsx, as `npm run <command>` does. `exec` replaces this shell with node, so the SIGTERM of
# `docker stop` reaches the role's own shutdown handler, which lets running jobs finish before the process exits.
set -eu

role_() {
  entry=$1
  shift
  exec node "dist/workers/$entry.js" "$@"
}

command_() {
  entry=$1
  shift
  exec node --import tsx "src/cli/$entry.ts" "$@"
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
  all            every role above in one process (poller, agent worker, sender, scheduler, dashboard)

commands:
  check          reach every server the configuration names once (Redis, mailbox, model server, indexes, SMTP)
                 and check the dashboard's settings; changes nothing, exits 1 when one fails
  reindex        rebuild the search indexes (--queue hands the job to the scheduler; --wait waits for it)
  review         list, approve, edit, reject or re-run parked drafts; erase a customer
  knowledge      learned answers (list, accept, edit, export…), knowledge gaps, the sources' trust
  ask            ask the agent one question
  search         search the manual or the Q&A pairs

Anything else is run as a command (e.g. `sh` for a shell inside the image).
EOF
}

role=${1:-help}
[ "$#" -gt 0 ] && shift

case "$role" in
  agent-worker) role_ agent-worker "$@" ;;
  poller | imap-poller) role_ imap-poller "$@" ;;
  sender) role_ sender "$@" ;;
  scheduler) role_ scheduler "$@" ;;
  dashboard) role_ dashboard "$@" ;;
  all) role_ all "$@" ;;
  check | reindex | review | knowledge | ask | search) command_ "$role" "$@" ;;
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
