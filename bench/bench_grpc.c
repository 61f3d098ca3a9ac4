/* What one gRPC message costs the CPUs at its two ends, measured on loopback
 * with gRPC's own C core (the library under TensorFlow's RecvTensor and every
 * gRPC binding): a server process and a client process, unary calls one after
 * another shaped as RecvTensor is -- a small request naming S, a reply of S
 * bytes (the tensor) after 8 bytes of the server's process CPU time. So the
 * client reads both ends' CPU seconds per call (every thread of each process
 * counted, gRPC's pollers too) beside the wall time: the server's are the
 * tensor's sender's, the client's its receiver's. A line over S fitted by
 * least relative squares (GSL) splits each into a fixed cost per message and
 * a cost per byte; the fixed costs are the `grpc` row of data/rpc_costs.csv
 * (docs/simulation.md#grpc). Nothing leaves loopback.
 * Build: cmake --build build --target bench_grpc; run: build/bench_grpc [CALLS]
 * (calls per size up to 64 KiB; fewer at larger sizes). */
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gq_clock.h"

/* Waits for the event tagged `tag`; 0 if it came and succeeded. */
static int await(grpc_completion_queue *cq, void *tag)
{
    grpc_event ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    return ev.type == GRPC_OP_COMPLETE && ev.tag == tag && ev.success ? 0 : -1;
}

/* No message size limit (gRPC's default refuses more than 4 MiB). */
static grpc_channel_args *unlimited(void)
{
    static grpc_arg arg[2];
    static grpc_channel_args args = {2, arg};
    arg[0].type = arg[1].type = GRPC_ARG_INTEGER;
    arg[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    arg[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    arg[0].value.integer = arg[1].value.integer = -1;
    return &args;
}

enum { MAX_BYTES = 16 << 20 };

/* The server: answers a request naming S (8 bytes) with its process CPU time and S bytes, until a call to
 * /gq.Bench/Stop. */
static int serve(int port_fd)
{
    static uint8_t tensor[MAX_BYTES];
    for (size_t j = 0; j < sizeof tensor; j++) tensor[j] = (uint8_t)(j * 131 + 7);
    grpc_init();
    grpc_server *srv = grpc_server_create(unlimited(), NULL);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(srv, cq, NULL);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    int port = grpc_server_add_http2_port(srv, "127.0.0.1:0", creds);
    grpc_server_credentials_release(creds);
    if (port <= 0) return fprintf(stderr, "bench_grpc: server: cannot listen on 127.0.0.1\n"), 1;
    grpc_server_start(srv);
    if (write(port_fd, &port, sizeof port) != (ssize_t)sizeof port) return 1;
    close(port_fd);
    for (int stop = 0; !stop;) {
        grpc_call *call = NULL;
        grpc_call_details details;
        grpc_metadata_array md;
        grpc_call_details_init(&details);
        grpc_metadata_array_init(&md);
        if (grpc_server_request_call(srv, &call, &details, &md, cq, cq, (void *)1) != GRPC_CALL_OK ||
            await(cq, (void *)1))
            return fprintf(stderr, "bench_grpc: server: no call\n"), 1;
        stop = grpc_slice_str_cmp(details.method, "/gq.Bench/Stop") == 0;
        grpc_byte_buffer *req = NULL;
        grpc_op in[2];
        memset(in, 0, sizeof in);
        in[0].op = GRPC_OP_SEND_INITIAL_METADATA;
        in[1].op = GRPC_OP_RECV_MESSAGE;
        in[1].data.recv_message.recv_message = &req;
        if (grpc_call_start_batch(call, in, 2, (void *)2, NULL) != GRPC_CALL_OK || await(cq, (void *)2))
            return fprintf(stderr, "bench_grpc: server: request lost\n"), 1;
        uint64_t want = 0;
        grpc_byte_buffer_reader r;
        if (req && grpc_byte_buffer_reader_init(&r, req)) {
            grpc_slice all = grpc_byte_buffer_reader_readall(&r);
            if (GRPC_SLICE_LENGTH(all) == sizeof want) memcpy(&want, GRPC_SLICE_START_PTR(all), sizeof want);
            grpc_slice_unref(all);
            grpc_byte_buffer_reader_destroy(&r);
        }
        want = want > MAX_BYTES ? MAX_BYTES : want;
        double cpu = gq_process_cpu_now();
        grpc_slice s[2] = {grpc_slice_from_copied_buffer((const char *)&cpu, sizeof cpu),
                           grpc_slice_from_static_buffer(tensor, (size_t)want)};
        grpc_byte_buffer *reply = grpc_raw_byte_buffer_create(s, 2);
        int cancelled = 0;
        grpc_op out[3];
        memset(out, 0, sizeof out);
        out[0].op = GRPC_OP_SEND_MESSAGE;
        out[0].data.send_message.send_message = reply;
        out[1].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        out[1].data.send_status_from_server.status = GRPC_STATUS_OK;
        out[2].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
        out[2].data.recv_close_on_server.cancelled = &cancelled;
        if (grpc_call_start_batch(call, out, 3, (void *)3, NULL) != GRPC_CALL_OK || await(cq, (void *)3))
            return fprintf(stderr, "bench_grpc: server: reply lost\n"), 1;
        grpc_byte_buffer_destroy(req), grpc_byte_buffer_destroy(reply), grpc_slice_unref(s[0]), grpc_slice_unref(s[1]);
        grpc_call_unref(call);
        grpc_call_details_destroy(&details), grpc_metadata_array_destroy(&md);
    }
    grpc_server_shutdown_and_notify(srv, cq, (void *)4);
    await(cq, (void *)4);
    grpc_server_destroy(srv);
    grpc_completion_queue_shutdown(cq);
    grpc_completion_queue_destroy(cq);
    grpc_shutdown();
    return 0;
}

typedef struct {
    grpc_channel *ch;
    grpc_completion_queue *cq;
} client;

/* One unary call asking for `bytes`; the server's CPU clock from the reply into *server_cpu. */
static int call(client *cl, const char *method, uint64_t bytes, double *server_cpu)
{
    grpc_slice payload = grpc_slice_from_copied_buffer((const char *)&bytes, sizeof bytes);
    grpc_slice m = grpc_slice_from_static_string(method);
    grpc_call *c = grpc_channel_create_call(cl->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cl->cq, m, NULL,
                                            gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    grpc_byte_buffer *req = grpc_raw_byte_buffer_create(&payload, 1), *resp = NULL;
    grpc_metadata_array initial, trailing;
    grpc_metadata_array_init(&initial), grpc_metadata_array_init(&trailing);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details;
    grpc_op op[6];
    memset(op, 0, sizeof op);
    op[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    op[1].op = GRPC_OP_SEND_MESSAGE;
    op[1].data.send_message.send_message = req;
    op[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    op[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    op[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
    op[4].op = GRPC_OP_RECV_MESSAGE;
    op[4].data.recv_message.recv_message = &resp;
    op[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op[5].data.recv_status_on_client.trailing_metadata = &trailing;
    op[5].data.recv_status_on_client.status = &status;
    op[5].data.recv_status_on_client.status_details = &details;
    int bad = grpc_call_start_batch(c, op, 6, (void *)9, NULL) != GRPC_CALL_OK || await(cl->cq, (void *)9) ||
              status != GRPC_STATUS_OK || !resp;
    if (!bad) {
        grpc_byte_buffer_reader r;
        bad = !grpc_byte_buffer_reader_init(&r, resp);
        if (!bad) { /* the reply may arrive in more than one slice */
            grpc_slice s = grpc_byte_buffer_reader_readall(&r);
            bad = GRPC_SLICE_LENGTH(s) != sizeof *server_cpu + bytes;
            if (!bad) memcpy(server_cpu, GRPC_SLICE_START_PTR(s), sizeof *server_cpu);
            grpc_slice_unref(s);
            grpc_byte_buffer_reader_destroy(&r);
        }
        grpc_slice_unref(details);
    }
    grpc_byte_buffer_destroy(req), grpc_slice_unref(payload);
    if (resp) grpc_byte_buffer_destroy(resp);
    grpc_metadata_array_destroy(&initial), grpc_metadata_array_destroy(&trailing);
    grpc_call_unref(c);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    const int calls = argc > 1 ? atoi(argv[1]) : 2000;
    if (calls < 10 || calls > 1000000) return fprintf(stderr, "bench_grpc: CALLS must be 10..1000000\n"), 2;
    int fd[2];
    if (pipe(fd)) return perror("bench_grpc: pipe"), 1;
    pid_t pid = fork();
    if (pid < 0) return perror("bench_grpc: fork"), 1;
    if (pid == 0) close(fd[0]), _exit(serve(fd[1]));
    close(fd[1]);
    int port = 0;
    if (read(fd[0], &port, sizeof port) != (ssize_t)sizeof port)
        return fprintf(stderr, "bench_grpc: the server did not start\n"), waitpid(pid, NULL, 0), 1;
    close(fd[0]);

    grpc_init();
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", port);
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    client cl = {grpc_channel_create(target, creds, unlimited()), grpc_completion_queue_create_for_next(NULL)};
    grpc_channel_credentials_release(creds);

    enum { NSIZES = 9 };
    static const double SIZES[NSIZES] = {0, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216};
    double x[NSIZES], wall[NSIZES], cli[NSIZES], srv[NSIZES];
    int bad = 0;
    printf("reply_bytes,calls,wall_us,receiver_cpu_us,sender_cpu_us\n");
    for (int i = 0; i < NSIZES && !bad; i++) {
        const size_t n = (size_t)SIZES[i];
        /* the larger messages take longer: as many bytes in all as 64 KiB calls would move, at least 10 calls */
        int k = n <= 65536 ? calls : (int)((double)calls * 65536 / (double)n);
        k = k < 10 ? 10 : k;
        double s0 = 0, s1 = 0;
        for (int w = 0; w < 10 && !bad; w++) bad = call(&cl, "/gq.Bench/Recv", n, &s0); /* warm up */
        const double w0 = gq_now(), c0 = gq_process_cpu_now();
        for (int j = 0; j < k && !bad; j++) bad = call(&cl, "/gq.Bench/Recv", n, &s1);
        const double w1 = gq_now(), c1 = gq_process_cpu_now();
        x[i] = SIZES[i], wall[i] = (w1 - w0) / k, cli[i] = (c1 - c0) / k, srv[i] = (s1 - s0) / k;
        if (!bad) printf("%.0f,%d,%.2f,%.2f,%.2f\n", x[i], k, 1e6 * wall[i], 1e6 * cli[i], 1e6 * srv[i]);
        fflush(stdout);
    }
    double s0;
    if (bad || call(&cl, "/gq.Bench/Stop", 0, &s0))
        fprintf(stderr, "bench_grpc: a call failed\n"), bad = 1, kill(pid, SIGTERM);
    grpc_channel_destroy(cl.ch);
    grpc_completion_queue_shutdown(cl.cq);
    while (grpc_completion_queue_next(cl.cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cl.cq);
    grpc_shutdown();
    int st = 0;
    waitpid(pid, &st, 0);
    if (bad || !WIFEXITED(st) || WEXITSTATUS(st)) return fprintf(stderr, "bench_grpc: the server failed\n"), 1;

    /* fixed cost per message and cost per byte: least squares of the relative errors (weights 1/y^2), so the
     * small messages pin the fixed cost as the large ones pin the cost per byte */
    printf("\nside,fixed_us_per_message,ns_per_byte,worst_error_pct\n");
    const char *side[3] = {"wall", "receiver_cpu", "sender_cpu"};
    const double *y[3] = {wall, cli, srv};
    for (int s = 0; s < 3; s++) {
        double wt[NSIZES], c0, c1, cov00, cov01, cov11, chisq, worst = 0;
        for (int i = 0; i < NSIZES; i++) wt[i] = 1 / (y[s][i] * y[s][i]);
        gsl_fit_wlinear(x, 1, wt, 1, y[s], 1, NSIZES, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
        for (int i = 0; i < NSIZES; i++) {
            const double e = fabs(c0 + c1 * x[i] - y[s][i]) / y[s][i];
            worst = e > worst ? e : worst;
        }
        printf("%s,%.2f,%.4f,%.1f\n", side[s], 1e6 * c0, 1e9 * c1, 100 * worst);
    }
    return 0;
}
