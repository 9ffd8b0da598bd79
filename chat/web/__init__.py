"""The chat as a web server: logins and accounts, tokens, the door on the socket (origins, rates, input), the
page's policy and assets, uploads, which language a page speaks, and what a server process sets up first."""
