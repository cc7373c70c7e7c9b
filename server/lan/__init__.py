"""A table on the LAN: ``truco-ssh host``, the DNS-SD advertisement, the machine's addresses."""
