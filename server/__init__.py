"""The truco-ssh server: SSH front end, lobby hub, persistence, CLI."""
import warnings

# asyncssh 2.24 names cryptography's DSA classes at import, and cryptography 47+ warns that
# DSA is deprecated: several lines on the operator's terminal at every start, about keys
# nobody here uses. Only that warning, only from asyncssh, before anything imports it.
warnings.filterwarnings("ignore", message="DSA is deprecated", module="asyncssh")
