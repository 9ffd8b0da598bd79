"""The chat's kit: what every chat feature (the desk's runs, backtests, comparisons, the book, watches) builds on.

- say.py: a Desk message in the thread's language, and whose page this is;
- offers.py: buttons that wait for a person's yes or no, stored so a restart still honours them;
- commands.py: the "/" commands the composer offers, declared once;
- tasks.py: a feature's work on a thread in a task of its own (Stop, a page rejoining it, its four endings);
- feature.py: what a feature offers app.py (its answer to a message, stop, a reopened thread, close, its buttons).
"""
