// Kokkos test program with known kernel counts (test_kokkos, built in the sid test bed with g++
// and libkokkos-dev): inside the profiling region "solver", STEPS steps of parallel_for "axpy",
// parallel_reduce "dot" every step, parallel_scan "prefix" every other step, a named fence
// "step fence" per step, and deep copies between the views "x" and "x_host" before and after,
// then twice a parallel_for without a label (Kokkos names it by the lambda's type).
// Prints what it ran and how long each kind of kernel took in all (steady_clock around each call;
// the OpenMP and Serial backends return when the kernel is done):
//   kernel NAME COUNT TOTAL_MS
//   fence step fence COUNT / deep_copy COUNT / region solver 1 / unlabeled 2
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>

#define STEPS 6
#define N     (1 << 20)

static double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv)
{
    Kokkos::initialize(argc, argv);
    {
        int n_axpy = 0, n_dot = 0, n_scan = 0, n_fence = 0, n_copy = 0;
        double t_axpy = 0, t_dot = 0, t_scan = 0;
        Kokkos::View<double *> x("x", N), y("y", N);
        // its own allocation (a mirror view of a host view would be the view itself: no copy)
        Kokkos::View<double *, Kokkos::HostSpace> x_host("x_host", N);
        for (int i = 0; i < N; i++)
            x_host(i) = 1.0 / (i + 1);
        Kokkos::Profiling::pushRegion("solver");
        Kokkos::deep_copy(x, x_host);
        n_copy++;
        for (int s = 0; s < STEPS; s++) {
            auto t0 = std::chrono::steady_clock::now();
            Kokkos::parallel_for(
                "axpy", N, KOKKOS_LAMBDA(int i) { y(i) = 2.0 * x(i) + y(i); });
            t_axpy += ms_since(t0);
            n_axpy++;
            double sum = 0;
            t0 = std::chrono::steady_clock::now();
            Kokkos::parallel_reduce(
                "dot", N, KOKKOS_LAMBDA(int i, double &acc) { acc += x(i) * y(i); }, sum);
            t_dot += ms_since(t0);
            n_dot++;
            if (s % 2 == 0) {
                t0 = std::chrono::steady_clock::now();
                Kokkos::parallel_scan(
                    "prefix", N, KOKKOS_LAMBDA(int i, double &part, bool final) {
                        part += x(i);
                        if (final)
                            y(i) = part;
                    });
                t_scan += ms_since(t0);
                n_scan++;
            }
            Kokkos::fence("step fence");
            n_fence++;
            if (sum < 0)
                std::printf("impossible\n");
        }
        Kokkos::deep_copy(x_host, x);
        n_copy++;
        for (int k = 0; k < 2; k++) // no label: Kokkos names it by the lambda's type
            Kokkos::parallel_for(N, KOKKOS_LAMBDA(int i) { y(i) = 0; });
        Kokkos::Profiling::popRegion();
        std::printf("kernel axpy %d %.3f\n", n_axpy, t_axpy);
        std::printf("kernel dot %d %.3f\n", n_dot, t_dot);
        std::printf("kernel prefix %d %.3f\n", n_scan, t_scan);
        std::printf("fence step fence %d\n", n_fence);
        std::printf("deep_copy %d\n", n_copy);
        std::printf("region solver 1\n");
        std::printf("unlabeled 2\n");
    }
    Kokkos::finalize();
    return 0;
}
