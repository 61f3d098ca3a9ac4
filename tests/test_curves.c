/* Accuracy curves as users have them: measured every tenth epoch, the epochs between filled in linearly and those
 * before the first unknown (no target reached there), runs of one quantizer ending at different epochs refused --
 * each value against the straight line through the given points, worked here; and a target reached exactly at a
 * given epoch counts there (the threshold at equality). */
#include <math.h>

#include "check.h"
#include "scenario.h"
#include "user_tables.h"

static const char SPARSE[] = "quant,epoch,accuracy\nfp32,10,0.80\nfp32,20,0.88\nfp32,30,0.90\n";

static void test_interpolated(void)
{
    static acc_curve c[2];
    int n = 0;
    char msg[512] = "";
    const gq_err e = acc_curves_parse(SPARSE, sizeof SPARSE - 1, "sparse.csv", c, 2, &n, msg, sizeof msg);
    CHECK(e == GQ_OK && n == 1 && c[0].epochs == 30 && c[0].first == 10 && c[0].interpolated == 18,
          "a curve given at epochs 10, 20, 30: 30 epochs, the first given 10, 18 interpolated (%zu, %zu, %zu) %s",
          c[0].epochs, c[0].first, c[0].interpolated, msg);
    int unknown = 1;
    for (int ep = 1; ep < 10; ep++) unknown &= isnan(c[0].acc[0][ep - 1]);
    CHECK(unknown, "epochs 1..9, before the first given, unknown");
    int on_lines = 1;
    for (int ep = 10; ep <= 30; ep++) {
        const double want =
            ep <= 20 ? 0.80 + (0.88 - 0.80) * (ep - 10) / 10.0 : 0.88 + (0.90 - 0.88) * (ep - 20) / 10.0;
        on_lines &= fabs(c[0].acc[0][ep - 1] - want) < 1e-15;
    }
    CHECK(on_lines, "epochs 10..30 on the straight lines through the given points (epoch 15: %.17g)", c[0].acc[0][14]);
    CHECK(c[0].acc[0][19] == 0.88 && c[0].acc[0][29] == 0.90, "the given points as given");

    /* 0.85 first reached at epoch 17 (0.856; epoch 16 is 0.848), 100 iterations an epoch; 0.88 exactly at the given
     * epoch 20: reached there; 0.91, never */
    tta_result r = tta_reach(&c[0].acc[0][0], 1, ACC_CURVE_MAX_EPOCHS, c[0].epochs, 0.85, 100);
    CHECK(r.reached == 1 && r.iterations == 1700, "0.85 at epoch 17: %zu seeds, %g iterations (1700)", r.reached,
          r.iterations);
    r = tta_reach(&c[0].acc[0][0], 1, ACC_CURVE_MAX_EPOCHS, c[0].epochs, 0.88, 100);
    CHECK(r.reached == 1 && r.iterations == 2000, "0.88 exactly at the given epoch 20: %g iterations (2000)",
          r.iterations);
    r = tta_reach(&c[0].acc[0][0], 1, ACC_CURVE_MAX_EPOCHS, c[0].epochs, 0.91, 100);
    CHECK(r.reached == 0 && r.final_accuracy == 0.90, "0.91 never: %zu seeds, final %g", r.reached, r.final_accuracy);
}

static void test_runs_end_apart(void)
{
    static const char TEXT[] = "quant,epoch,accuracy,seed\nfp32,10,0.8,1\nfp32,20,0.85,1\nfp32,10,0.79,2\n";
    static acc_curve c[2];
    int n = 0;
    char msg[512] = "";
    const gq_err e = acc_curves_parse(TEXT, sizeof TEXT - 1, "apart.csv", c, 2, &n, msg, sizeof msg);
    CHECK(e == GQ_ERR_SPEC && strstr(msg, "apart.csv: fp32, seed 2, ends at epoch 10 where another run of it ends at "
                                          "epoch 20"),
          "seeds ending at epochs 20 and 10: refused, naming both: %s", msg);
    /* dense curves as before: nothing interpolated, the first epoch 1 */
    static const char DENSE[] = "quant,epoch,accuracy\nfp32,1,0.5\nfp32,2,0.6\n";
    CHECK(acc_curves_parse(DENSE, sizeof DENSE - 1, "dense.csv", c, 2, &n, msg, sizeof msg) == GQ_OK &&
              c[0].interpolated == 0 && c[0].first == 1 && c[0].epochs == 2,
          "a dense curve: nothing interpolated (%zu), first epoch 1 (%zu)", c[0].interpolated, c[0].first);
}

int main(void)
{
    test_interpolated();
    test_runs_end_apart();
    return check_summary();
}
