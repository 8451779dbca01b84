// CHARTER_API marks the symbols that the shared library exports; everything
// else is hidden (-fvisibility=hidden).
#ifndef CHARTER_EXPORT_H_
#define CHARTER_EXPORT_H_

#if defined(CHARTER_SHARED_LIBRARY) && defined(__GNUC__)
#define CHARTER_API __attribute__((visibility("default")))
#else
#define CHARTER_API
#endif

#endif  // CHARTER_EXPORT_H_
