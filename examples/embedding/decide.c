/* decide.c: Charter's C API from a C11 program. Compiles a policy set with
 * its schema, reads the entities, then decides each request of a file that
 * holds one request JSON object a line (a line that does not start with `{`,
 * after its indentation, is skipped, and a trailing comma is ignored, so a JSON array written one
 * request a line, as examples/governance/requests.json is, reads as it is),
 * printing one decision a line as `charter authorize --format jsonl` does.
 *
 *   cc -std=c11 decide.c $(pkg-config --cflags --libs charter) -o decide
 *   ./decide policies.cedar schema.cedarschema entities.json requests.json
 */
#include <charter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a whole file; NULL (with a message) if it cannot. */
static char* read_file(const char* path, size_t* length) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    perror(path);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char* bigger = realloc(buf, cap *= 2);
      if (bigger == NULL) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (buf == NULL) {
    fprintf(stderr, "%s: out of memory\n", path);
    return NULL;
  }
  *length = n;
  return buf;
}

static int fail(charter_error* error) {
  fprintf(stderr, "decide: %s\n", charter_error_message(error, NULL));
  charter_error_free(error);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s POLICIES SCHEMA ENTITIES REQUESTS\n", argv[0]);
    return 2;
  }
  size_t policies_length, schema_length, entities_length, requests_length;
  char* policies = read_file(argv[1], &policies_length);
  char* schema = read_file(argv[2], &schema_length);
  char* entities_json = read_file(argv[3], &entities_length);
  char* requests = read_file(argv[4], &requests_length);
  if (policies == NULL || schema == NULL || entities_json == NULL || requests == NULL) return 1;

  charter_error* error = NULL;
  charter_engine* engine = NULL;
  charter_entities* entities = NULL;
  charter_eval_context* context = NULL;
  if (charter_engine_compile(policies, policies_length, schema, schema_length, &engine, &error) != CHARTER_OK ||
      charter_entities_from_json(entities_json, entities_length, schema, schema_length, &entities, &error) !=
          CHARTER_OK ||
      charter_eval_context_new(&context, &error) != CHARTER_OK) {
    return fail(error);
  }

  int status = 0;
  char* line = requests;
  char* end = requests + requests_length;
  while (line < end) {
    char* next = memchr(line, '\n', (size_t)(end - line));
    if (next == NULL) next = end;
    char* start = line;
    while (start < next && (*start == ' ' || *start == '\t')) ++start;
    size_t n = (size_t)(next - start);
    while (n > 0 && (start[n - 1] == ',' || start[n - 1] == ' ' || start[n - 1] == '\r')) --n;
    if (n > 0 && start[0] == '{') {
      charter_request* request = NULL;
      char* json = NULL;
      if (charter_request_from_json(start, n, &request, &error) != CHARTER_OK ||
          charter_authorize(engine, entities, request, context, &error) != CHARTER_OK ||
          charter_eval_context_decision_json(context, &json, NULL, &error) != CHARTER_OK) {
        status = fail(error);
        error = NULL;
      } else {
        printf("%s\n", json);
      }
      charter_free(json);
      charter_request_free(request);
    }
    line = next + 1;
  }

  charter_eval_context_free(context);
  charter_entities_free(entities);
  charter_engine_free(engine);
  free(policies);
  free(schema);
  free(entities_json);
  free(requests);
  return status;
}
