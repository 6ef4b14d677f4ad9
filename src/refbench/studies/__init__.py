"""Human studies of the registered tasks: their study types by name (each task's studies
capability), agreement and progress reports, and exports of the answers."""
