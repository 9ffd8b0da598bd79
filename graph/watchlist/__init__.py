"""Watches: tickers (or the user's whole book) re-checked on a schedule, each slot an ordinary run of the desk,
and a notice when a call changes. words.py reads a watch from a message, rules.py says when a watch runs and
which slot is due, store.py keeps watches and notices per user, slots.py runs a slot exactly once,
webhook.py posts a notice, scheduler.py wakes the process at the slots (APScheduler, jobs in the database)."""
