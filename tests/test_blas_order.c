/* A binary that links GSL (whose link flags bring GSL's reference CBLAS)
 * before OpenBLAS runs GSL's cblas_sgemm: blas_core_in_use() must say so
 * rather than name OpenBLAS's core, and gqsim itself must not be such a
 * binary (the CLI test checks its kernel column). Built with GSL first on
 * its link line on purpose. */
#include <stdio.h>
#include <string.h>

#include "blas_core.h"
#include "check.h"

int main(void)
{
    const char *core = blas_core_in_use();
    CHECK(strcmp(core, "not-OpenBLAS") == 0, "GSL's CBLAS linked first: blas_core_in_use() says '%s'", core);
    return check_summary();
}
