//! libclang access.
