"""The paper book: a user's opt-in record that follows the desk's calls forward, on paper, at the next
session's open after each decision (graph/paper/ledger.py has the rules), separate from the user's book."""
