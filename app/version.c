/*
 * version.c — `mixbench --version`.  The version is said in one place, the
 * file VERSION at the top of the tree; the Makefile passes it as
 * MIXBENCH_VERSION with `git describe` of the checkout when there is one
 * ("1.0.0 (git a327a5c-dirty)"), and rebuilds this file when it changes.
 * The man page's header reads it from here too.
 */
#include "app/commands.h"

#ifndef MIXBENCH_VERSION
#error "MIXBENCH_VERSION is set by the Makefile (from the file VERSION)"
#endif

const char *mixbench_version(void)
{
    return MIXBENCH_VERSION;
}
