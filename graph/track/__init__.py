"""The desk's track record: every decision logged per user, scored when its horizon has passed,
reflected on, and recalled (point in time) by later analyses."""
