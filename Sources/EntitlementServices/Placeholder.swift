// Placeholder: the services arrive in this session.
