from tests.protocol.tests_protocol_examples import *  # noqa: F401,F403  (the round-trip tests live beside the examples)
