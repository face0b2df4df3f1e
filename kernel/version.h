/* Version string: release plus `git describe`, passed in by the Makefile. */
#ifndef VERSION_H
#define VERSION_H
#ifndef GIT_DESCRIBE
#define GIT_DESCRIBE "unknown"
#endif
#define LINERATE_VERSION "0.1.0 (" GIT_DESCRIBE ")"
#endif
