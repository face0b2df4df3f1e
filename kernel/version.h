/* Version string: release plus `git describe`, passed in by the Makefile. */
#ifndef VERSION_H
#define VERSION_H
#ifndef GIT_DESCRIBE
#define GIT_DESCRIBE "unknown"
#endif
#define LINERATE_RELEASE "0.1.0"
#define LINERATE_VERSION LINERATE_RELEASE " (" GIT_DESCRIBE ")"
#endif
