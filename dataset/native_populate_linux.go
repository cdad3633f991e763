package dataset

import "syscall"

// mapPopulate asks Linux to read a mapping's pages in one go when the whole
// file is about to be read (verification), instead of one fault per page.
const mapPopulate = syscall.MAP_POPULATE
