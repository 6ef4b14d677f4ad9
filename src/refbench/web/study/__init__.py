"""The human studies' pages: the annotators' and the admin's (a Flask blueprint), the index of
studies, and a server of their own for annotators on the network."""
