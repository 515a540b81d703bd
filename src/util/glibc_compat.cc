// Linked only into build/portable/tracesql (cmake/Portable.cmake, the Python wheel's, docs/python.md):
// lets a program built against glibc 2.36 (Debian 12) run on glibc 2.28 (RHEL 8) and later.
//
// A program records, for each glibc function it calls, the symbol version it was linked against: the
// newest one the build machine's glibc has. A handful of functions got new versions after 2.28
// (__libc_start_main, and the pthread and dl functions moved into libc, in 2.34; stat in 2.33; exp,
// log and pow in 2.29), and the static libstdc++ and libbsd call three functions glibc 2.28 lacks. The
// linker sends every call of such a function to __wrap_NAME here (-Wl,--wrap=NAME, see
// cmake/Portable.cmake), which calls the version glibc 2.28 already had (still present in newer glibc for
// old programs); the two missing ones are written in terms of older calls. tests/python/check_glibc.sh
// checks with objdump that no version above GLIBC_2.28 is left.
#include <dlfcn.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include <cstddef>
#include <cstdint>

#define TQ_OLD_VERSION(name, version) __asm__(".symver tq_old_" #name "," #name "@" version)

extern "C" {

// ---- program start: glibc 2.34's __libc_start_main no longer takes the program's init function ----
// Old glibc expects the init function the old crt1.o passed (__libc_csu_init): it runs the program's
// own constructors (_init, then .init_array), which newer glibc runs itself when init is NULL. Passing
// one that does the same work gives the same behaviour on both.
int tq_old___libc_start_main(int (*main)(int, char**, char**), int argc, char** argv,
                             void (*init)(int, char**, char**), void (*fini)(), void (*rtld_fini)(),
                             void* stack_end);
TQ_OLD_VERSION(__libc_start_main, "GLIBC_2.2.5");

extern void _init();
extern void (*__init_array_start[])(int, char**, char**) __attribute__((visibility("hidden")));
extern void (*__init_array_end[])(int, char**, char**) __attribute__((visibility("hidden")));

static void tq_run_constructors(int argc, char** argv, char** envp) {
  _init();
  for (auto* f = __init_array_start; f != __init_array_end; ++f) (*f)(argc, argv, envp);
}

int __wrap___libc_start_main(int (*main)(int, char**, char**), int argc, char** argv, void (*)(int, char**, char**),
                             void (*fini)(), void (*rtld_fini)(), void* stack_end) {
  return tq_old___libc_start_main(main, argc, argv, tq_run_constructors, fini, rtld_fini, stack_end);
}

// ---- functions whose new version has the old behaviour: call the old version ----
// TQ_FORWARD(return type, name, old version, (parameters), (arguments)) defines __wrap_name, which
// calls name@old version.
#define TQ_FORWARD(ret, name, version, params, args) \
  ret tq_old_##name params;                           \
  TQ_OLD_VERSION(name, version);                      \
  ret __wrap_##name params { return tq_old_##name args; }

// Moved from libpthread and libdl into libc in 2.34, where they got a new version (old programs
// find them in libpthread.so.0 and libdl.so.2, which the program lists as needed for old glibc).
TQ_FORWARD(int, pthread_create, "GLIBC_2.2.5", (pthread_t* t, const pthread_attr_t* a, void* (*f)(void*), void* arg),
           (t, a, f, arg))
TQ_FORWARD(int, pthread_join, "GLIBC_2.2.5", (pthread_t t, void** r), (t, r))
TQ_FORWARD(int, pthread_detach, "GLIBC_2.2.5", (pthread_t t), (t))
TQ_FORWARD(int, pthread_kill, "GLIBC_2.2.5", (pthread_t t, int sig), (t, sig))
TQ_FORWARD(int, pthread_once, "GLIBC_2.2.5", (pthread_once_t* o, void (*f)()), (o, f))
TQ_FORWARD(int, pthread_key_create, "GLIBC_2.2.5", (pthread_key_t* k, void (*d)(void*)), (k, d))
TQ_FORWARD(int, __pthread_key_create, "GLIBC_2.2.5", (pthread_key_t* k, void (*d)(void*)), (k, d))
TQ_FORWARD(int, pthread_key_delete, "GLIBC_2.2.5", (pthread_key_t k), (k))
TQ_FORWARD(void*, pthread_getspecific, "GLIBC_2.2.5", (pthread_key_t k), (k))
TQ_FORWARD(int, pthread_setspecific, "GLIBC_2.2.5", (pthread_key_t k, const void* v), (k, v))
TQ_FORWARD(int, pthread_mutex_trylock, "GLIBC_2.2.5", (pthread_mutex_t* m), (m))
TQ_FORWARD(int, pthread_mutexattr_init, "GLIBC_2.2.5", (pthread_mutexattr_t* a), (a))
TQ_FORWARD(int, pthread_mutexattr_destroy, "GLIBC_2.2.5", (pthread_mutexattr_t* a), (a))
TQ_FORWARD(int, pthread_mutexattr_settype, "GLIBC_2.2.5", (pthread_mutexattr_t* a, int k), (a, k))
TQ_FORWARD(void*, dlopen, "GLIBC_2.2.5", (const char* file, int mode), (file, mode))
TQ_FORWARD(void*, dlsym, "GLIBC_2.2.5", (void* h, const char* name), (h, name))
TQ_FORWARD(int, dlclose, "GLIBC_2.2.5", (void* h), (h))
TQ_FORWARD(char*, dlerror, "GLIBC_2.2.5", (), ())
// exp, log and pow of 2.29 differ from the old ones only in not reporting errors through SVID matherr.
TQ_FORWARD(double, exp, "GLIBC_2.2.5", (double x), (x))
TQ_FORWARD(double, log, "GLIBC_2.2.5", (double x), (x))
TQ_FORWARD(double, pow, "GLIBC_2.2.5", (double x, double y), (x, y))

// ---- stat: before 2.33 the functions were __xstat & co. with a version argument (1 on x86-64) ----
int tq_old___xstat(int, const char*, struct stat*);
int tq_old___fxstat(int, int, struct stat*);
int tq_old___lxstat(int, const char*, struct stat*);
int tq_old___fxstatat(int, int, const char*, struct stat*, int);
int tq_old___xstat64(int, const char*, struct stat64*);
int tq_old___fxstat64(int, int, struct stat64*);
int tq_old___lxstat64(int, const char*, struct stat64*);
TQ_OLD_VERSION(__xstat64, "GLIBC_2.2.5");
TQ_OLD_VERSION(__fxstat64, "GLIBC_2.2.5");
TQ_OLD_VERSION(__lxstat64, "GLIBC_2.2.5");
TQ_OLD_VERSION(__xstat, "GLIBC_2.2.5");
TQ_OLD_VERSION(__fxstat, "GLIBC_2.2.5");
TQ_OLD_VERSION(__lxstat, "GLIBC_2.2.5");
TQ_OLD_VERSION(__fxstatat, "GLIBC_2.4");
constexpr int kStatVer = 1;  // _STAT_VER_LINUX on x86-64
int __wrap_stat(const char* path, struct stat* st) { return tq_old___xstat(kStatVer, path, st); }
int __wrap_fstat(int fd, struct stat* st) { return tq_old___fxstat(kStatVer, fd, st); }
int __wrap_lstat(const char* path, struct stat* st) { return tq_old___lxstat(kStatVer, path, st); }
int __wrap_stat64(const char* path, struct stat64* st) { return tq_old___xstat64(kStatVer, path, st); }
int __wrap_fstat64(int fd, struct stat64* st) { return tq_old___fxstat64(kStatVer, fd, st); }
int __wrap_lstat64(const char* path, struct stat64* st) { return tq_old___lxstat64(kStatVer, path, st); }
int __wrap_fstatat(int dirfd, const char* path, struct stat* st, int flags) {
  return tq_old___fxstatat(kStatVer, dirfd, path, st, flags);
}

// ---- what glibc 2.28 lacks, used by the static libstdc++ ----
// pthread_cond_clockwait (2.30): std::condition_variable waits on the steady clock with it. The
// deadline is moved to the realtime clock for pthread_cond_timedwait; a wall-clock jump during the
// wait shifts when it times out, as it did with libstdc++ before GCC 10.
int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                  const struct timespec* abstime) {
  if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, abstime);
  timespec now_clock{}, now_real{};
  clock_gettime(clock, &now_clock);
  clock_gettime(CLOCK_REALTIME, &now_real);
  long long ns = (abstime->tv_sec - now_clock.tv_sec) * 1000000000LL + (abstime->tv_nsec - now_clock.tv_nsec);
  if (ns < 0) ns = 0;
  ns += now_real.tv_sec * 1000000000LL + now_real.tv_nsec;
  timespec real{static_cast<time_t>(ns / 1000000000LL), static_cast<long>(ns % 1000000000LL)};
  return pthread_cond_timedwait(cond, mutex, &real);
}

// arc4random (2.36): libbsd's arc4random_uniform calls it. getrandom (2.25) gives the same bytes.
uint32_t __wrap_arc4random() {
  uint32_t v = 0;
  while (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
  }
  return v;
}

// __libc_single_threaded (2.32): libstdc++ skips atomic reference counting while it is non-zero.
// Defined here as 0 (glibc has no copy to tell otherwise on 2.28): always the atomic path, which is
// correct with any number of threads.
char __libc_single_threaded = 0;

}  // extern "C"
