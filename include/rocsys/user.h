/**
 * @file rocsys/user.h
 * @brief rocsys-top's user API: named regions, marks, and sampling control.
 *
 * Link with librocsys-user.so (pkg-config `rocsys-user`, or CMake `find_package(rocsys-user)`
 * and the target `rocsys::user`). Without rocsys-top every function is an empty stub (a call
 * costs a few nanoseconds); under rocsys-top the collector, which is preloaded, provides the
 * same functions and records the calls. All functions are thread-safe; regions are per thread.
 *
 * Regions show in rocsys-top's call tree (as `[region] NAME` nodes above the sampled code of
 * the thread), in its Regions view (count, total, mean, min, max and standard deviation of the
 * time per region and thread), as slices on the thread's track in `trace.pftrace`, and in
 * `profile.txt`.
 */
#ifndef ROCSYS_USER_H
#define ROCSYS_USER_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Open a region named @p name on the calling thread.
 *
 * Regions nest; close each with rocsys_user_pop() on the same thread. Names are UTF-8 text of
 * at most 127 bytes (longer names are cut); the string is copied, it may be reused at once.
 * @param name the region's name (NULL is recorded as "(null)")
 * @return under rocsys-top, the nesting level of the new region (0 = outermost); 0 otherwise
 */
int rocsys_user_push(const char *name);

/**
 * @brief Close the innermost open region of the calling thread.
 * @return under rocsys-top, the level of the region closed, or -1 when no region was open (the
 *         unbalanced pop is counted and reported; nothing else happens); 0 otherwise
 */
int rocsys_user_pop(void);

/**
 * @brief Record an instant event named @p name on the calling thread.
 * @param name the mark's name (copied)
 */
void rocsys_user_mark(const char *name);

/**
 * @brief A latency point's arrival: a request (a unit of work whose latency matters) starts.
 *
 * With `rocsys-top --causal`, when the program calls rocsys_user_begin() and rocsys_user_end()
 * (and no rocsys_user_mark()), the experiments predict how the time from a begin to its end
 * would change, by Little's law (mean latency = mean count in flight / arrival rate), as Coz's
 * COZ_BEGIN and COZ_END: a begin and an end need not be on the same thread, nor paired by
 * name (all names count alike). Otherwise nothing is recorded.
 * @param name the point's name
 */
void rocsys_user_begin(const char *name);

/**
 * @brief A latency point's departure: a request started by rocsys_user_begin() ends.
 * @param name the point's name
 */
void rocsys_user_end(const char *name);

/**
 * @brief Resume call-stack sampling of the whole process after rocsys_user_stop_sampling().
 *
 * Sampling is on when the program starts. Regions are recorded in either state.
 */
void rocsys_user_start_sampling(void);

/**
 * @brief Pause call-stack sampling of the whole process (e.g. around set-up code).
 */
void rocsys_user_stop_sampling(void);

/**
 * @brief Whether the calls are being recorded.
 * @return 1 when the program runs under rocsys-top, 0 otherwise
 */
int rocsys_user_active(void);

#ifdef __cplusplus
}
#endif

#endif
