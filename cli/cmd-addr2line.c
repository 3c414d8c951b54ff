/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof --addr2line [-a] [-C] [-f] [-i] [-p] [-s] -e FILE [ADDR...]: what
 * `addr2line` prints with the same options (`addr2line -f -i -C` when none
 * of -a, -C, -f, -i, -p, -s is given), from symprof's own symbolizer (the same
 * answers, see symbolize/dwarf-funcs.c), for addresses given on the command
 * line or, without any, read from stdin one per line. The command line is
 * addr2line's (cli/options.c parse_addr2line()).
 *
 * Each address prints (-i) its inline chain, innermost first, else its
 * innermost function, a line per function:
 *
 *   [0xADDR\n]      -a: the address, in the file's word width
 *   [name\n]        -f: "??" when unknown; demangled with -C
 *   file:line       "??:0" when nothing is known, "file:?" without a
 *                   line, " (discriminator N)" after the line when set;
 *                   -s: the file's base name
 *
 * -p puts an address's answer on one line: "0xADDR: " before it, " at "
 * between name and file, " (inlined by) " between the functions.
 *
 * An input line that starts like a symbol ("main", "foo+0x10") is looked
 * up in the file's symbol table, as addr2line does. Output is buffered
 * (addr2line flushes after every address; the bytes are the same), and
 * stdin is answered in batches looked up in address order; a batch is
 * answered and flushed early when no more input is ready (a server
 * child's client waits for each answer before it writes on).
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/symbolize.h"

struct a2l {
	struct sp_symbolizer *sym;
	struct sp_symfile *file;
	struct sp_buf out;
	int demangle;
	int addresses, pretty, basenames, functions, inlines; /* -a -p -s -f -i */
	int addr_digits;				      /* -a: 16, or 8 for a 32-bit file */
	uint64_t addr_mask; /* input cut to a 32-bit ELF file's width */
	const uint64_t *pc; /* the batch's addresses (print_many()) */
};

/* Writes v in decimal at p; returns the end. */
static char *put_uint(char *p, unsigned v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* One frame: "name\nfile:line[ (discriminator N)]\n" ("name at " with -p,
 * no name without -f), "file:?" without a line; written in place after
 * making room once. */
static void print_frame(struct a2l *a, const struct sp_sym_frame *f)
{
	static const char disc[] = " (discriminator ";
	const char *name = f->name && f->name[0] ? f->name : "??";
	const char *file = f->file ? f->file : "??", *slash;
	size_t nlen = 0, flen;
	char *p;

	if (a->functions) {
		if (a->demangle && f->name)
			name = sp_symbolizer_demangle_in(a->sym, a->file, name);
		nlen = strlen(name);
	}
	if (a->basenames && f->file && (slash = strrchr(file, '/')))
		file = slash + 1;
	flen = strlen(file);
	sp_buf_grow(&a->out, nlen + flen + sizeof(disc) + 32);
	p = a->out.buf + a->out.len;
	if (a->functions) {
		p = put_str(p, name, nlen);
		if (a->pretty)
			p = put_str(p, " at ", 4);
		else
			*p++ = '\n';
	}
	p = put_str(p, file, flen);
	*p++ = ':';
	if (!f->line) {
		*p++ = '?';
	} else {
		p = put_uint(p, f->line);
		if (f->discriminator) {
			p = put_str(p, disc, sizeof(disc) - 1);
			p = put_uint(p, f->discriminator);
			*p++ = ')';
		}
	}
	*p++ = '\n';
	*p = '\0';
	a->out.len = (size_t)(p - a->out.buf);
}

static void print_loc(struct a2l *a, uint64_t pc, const struct sp_symloc *loc)
{
	uint32_t i, n;

	if (a->addresses) {
		char hex[32];

		snprintf(hex, sizeof(hex), "0x%0*llx%s", a->addr_digits, (unsigned long long)pc,
			 a->pretty ? ": " : "\n");
		sp_buf_addstr(&a->out, hex);
	}
	if (!loc->nframes) {
		if (a->functions)
			sp_buf_addstr(&a->out, a->pretty ? "?? " : "??\n");
		sp_buf_addstr(&a->out, "??:0\n");
		return;
	}
	n = a->inlines ? loc->nframes : 1;
	for (i = 0; i < n; i++) {
		if (i && a->pretty)
			sp_buf_addstr(&a->out, " (inlined by) ");
		print_frame(a, &loc->frames[i]);
	}
}

/* addr2line's is_symbol(): "name" or "name+offset" rather than a number. */
static int symbol_input(struct a2l *a, char *s, uint64_t *pc)
{
	char *end;
	uint64_t off = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (isdigit((unsigned char)*s) || !*s)
		return 0;
	if (toupper((unsigned char)*s) >= 'A' && toupper((unsigned char)*s) <= 'F' &&
	    !strchr(s, '+'))
		return 0;
	for (end = s; *end && !isspace((unsigned char)*end) && *end != '+'; end++)
		;
	{
		char *p = end;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '+')
			off = strtoull(p + 1, NULL, 0);
	}
	*end = '\0';
	/* addr2line adds the offset to a symbol it found, else asks 0 */
	if (sp_symfile_find_symbol(a->file, s, pc) != 0)
		*pc = 0;
	else
		*pc += off;
	return 1;
}

/* strtoull(s, NULL, 16) for the usual "0x1234" input, faster; anything
 * else (spaces, signs, more than 16 digits) goes to strtoull itself. */
static uint64_t hex_value(const char *s)
{
	static const signed char val[256] = {
		['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
		['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
		['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
		['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
	};
	const unsigned char *p = (const unsigned char *)s;
	uint64_t v = 0;
	int i;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !val[p[2]])
		return strtoull(s, NULL, 16);
	for (p += 2, i = 0; val[*p] && i < 16; p++, i++)
		v = v << 4 | (uint64_t)(val[*p] - 1);
	return val[*p] ? strtoull(s, NULL, 16) : v;
}

/* An address as addr2line reads it: hex, or `name' / `name+off'; cut to
 * the file's width (addr2line masks 0x100001b80 to 0x00001b80 in a
 * 32-bit file, and finds it there). */
static uint64_t parse_input(struct a2l *a, char *line)
{
	uint64_t pc;

	if (!symbol_input(a, line, &pc))
		pc = hex_value(line);
	return pc & a->addr_mask;
}

static void flush_some(struct a2l *a)
{
	if (a->out.len >= 1 << 16) {
		fwrite(a->out.buf, 1, a->out.len, stdout);
		sp_buf_reset(&a->out);
	}
}

/* Everything answered so far, out now (the client may be waiting). */
static void flush_all(struct a2l *a)
{
	fwrite(a->out.buf, 1, a->out.len, stdout);
	sp_buf_reset(&a->out);
	fflush(stdout);
}

static void one(struct a2l *a, char *line)
{
	uint64_t pc = parse_input(a, line);

	print_loc(a, pc, sp_symfile_lookup_session(a->file, pc));
	flush_some(a);
}

static void print_many(void *ctx, size_t i, const struct sp_symloc *loc)
{
	struct a2l *a = ctx;

	print_loc(a, a->pc[i], loc);
	flush_some(a);
}

/*
 * Addresses per batch (about 120 bytes each while it is answered): each
 * batch walks the tables once, so a large file wants few of them (200k
 * addresses on a 33 MB program: 65,536 a batch 15-20% faster than
 * 16,384), and a small one little memory (a 1.6 MB program: peak RSS 7.6
 * MiB against 13.3, no slower).
 */
#define BATCH_SMALL (1u << 14)
#define BATCH_LARGE (1u << 16)
#define LARGE_FILE (4u << 20) /* bytes: from this size on, BATCH_LARGE */

/* stdin read in blocks (what read(2) has: a pipe's writer may wait for
 * the answers before it writes more), cut into lines as fgets() cuts them. */
struct line_reader {
	char block[1 << 16];
	size_t pos, len;
	int eof;
};

/*
 * The next line into buf (as fgets(buf, 100, stdin) would store it: up to
 * and with its newline, or its first 99 characters), NUL-terminated; 0 at
 * the end of the input. fgets() takes the stream's lock and copies a
 * character at a time; this is a memchr() over a block.
 */
static int next_line(struct line_reader *r, char buf[100])
{
	size_t n = 0, take;
	const char *nl;

	while (n < 99) {
		if (r->pos == r->len) {
			if (r->eof)
				break;
			ssize_t got;

			do
				got = read(STDIN_FILENO, r->block, sizeof(r->block));
			while (got < 0 && errno == EINTR);
			r->len = got > 0 ? (size_t)got : 0; /* an error ends the input */
			r->pos = 0;
			if (r->len == 0) {
				r->eof = 1;
				break;
			}
		}
		take = r->len - r->pos < 99 - n ? r->len - r->pos : 99 - n;
		nl = memchr(r->block + r->pos, '\n', take);
		if (nl)
			take = (size_t)(nl - (r->block + r->pos)) + 1;
		memcpy(buf + n, r->block + r->pos, take);
		r->pos += take;
		n += take;
		if (nl)
			break;
	}
	buf[n] = '\0';
	return n > 0;
}

/* Whether stdin has data (or its end, or an error) to read at once. */
static int input_ready(void)
{
	struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};

	return poll(&p, 1, 0) != 0;
}

/*
 * Lines of at most 99 characters, like addr2line's fgets(buf, 100),
 * looked up `batch` at a time (the answers are the same, see
 * sp_symfile_lookup_session_many()). When all the input read so far is
 * answered but for the addresses of the batch and no more is ready, those
 * are answered and the output flushed before waiting: addr2line answers
 * each address at once, and a program that runs it as a server writes an
 * address and waits for its answer (Go's pprof does).
 */
static void from_stdin(struct a2l *a, size_t batch)
{
	uint64_t *pcs = sp_xmalloc(batch * sizeof(*pcs));
	struct line_reader *r = sp_xcalloc(1, sizeof(*r));
	char buf[100];
	size_t n = 0;
	int more = 1;

	while (more) {
		int wait = n && r->pos == r->len && !r->eof && !input_ready();

		if (!wait)
			more = next_line(r, buf);
		if (!wait && more)
			pcs[n++] = parse_input(a, buf);
		if (n == batch || (!more && n) || wait) {
			a->pc = pcs;
			sp_symfile_lookup_session_many(a->file, pcs, n, print_many, a);
			n = 0;
			if (wait)
				flush_all(a);
		}
	}
	free(r);
	free(pcs);
}

int sp_cmd_addr2line(struct sp_opts *o)
{
	struct sp_error err = SP_ERROR_INIT;
	const char *path = o->last_e ? o->last_e : o->image_given ? o->image : "a.out";
	struct sp_symbolizer_opts so = {.search = &o->search, .cache_dir = o->cache_dir};
	struct a2l a;
	struct stat st;
	size_t i;

	memset(&a, 0, sizeof(a));
	a.demangle = o->demangle;
	a.addresses = o->a2l_addresses;
	a.pretty = o->a2l_pretty;
	a.basenames = o->a2l_basenames;
	a.functions = o->a2l_functions;
	a.inlines = o->a2l_inlines;
	a.sym = sp_symbolizer_new(&so);
	a.file = sp_symbolizer_open(a.sym, path, &err);
	if (!a.file) {
		sp_cli_error("%s", err.msg);
		sp_symbolizer_free(a.sym);
		return 1;
	}
	a.addr_digits = sp_symfile_target(a.file)->ptr_size == 4 ? 8 : 16;
	/* only ELF's: addr2line leaves other formats' addresses whole */
	a.addr_mask =
		a.addr_digits == 8 && sp_symfile_target(a.file)->is_elf ? UINT32_MAX : UINT64_MAX;
	sp_buf_init(&a.out, 1 << 17);
	if (o->last_e && o->image_given) {
		char *tmp = sp_xstrdup(o->image);

		one(&a, tmp);
		free(tmp);
		for (i = 0; i < o->nprofiles && !o->profiles_defaulted; i++) {
			tmp = sp_xstrdup(o->profiles[i]);
			one(&a, tmp);
			free(tmp);
		}
	} else {
		from_stdin(&a, stat(path, &st) == 0 && st.st_size >= LARGE_FILE ? BATCH_LARGE
										: BATCH_SMALL);
	}
	fwrite(a.out.buf, 1, a.out.len, stdout);
	sp_buf_release(&a.out);
	sp_symbolizer_free(a.sym);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sp_cli_error("cannot write the output: write error");
		return 1;
	}
	return 0;
}
