"""The Textual front end. Imports only ``protocol``: a session sees nothing but messages."""
