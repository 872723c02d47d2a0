package ptywright

// Version is the ptywright library version. Plugins see it as
// ptywright.version.
const Version = "0.1.0"
