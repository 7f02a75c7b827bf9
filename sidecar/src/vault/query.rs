//! Queries shared by every face: backlinks with context, outgoing links,
//! graph walks, vault checks.
