/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The table of input formats, and what the file arguments are.
 *
 * Each entry (struct sp_cli_format, cli.h) lives in its format's command
 * file; the table lists them in the order their probes are tried. Every
 * file named on the command line is looked at before anything is read:
 *
 *   profile     a probe recognises its first bytes (formats/, after
 *               decompression for a gzip or bzip2 file: sp_fmt_head)
 *   executable  ELF, PE or another object file libbfd recognises
 *               (symbolize/: sp_image_is_object)
 *   unknown     a readable file nothing recognises
 *   unseen      stdin ("-"), pipes, directories, missing or unreadable
 *               files: looking would consume them, or the reader says why
 *
 * gprof's rule, "the first file is the executable", holds when it is one,
 * or when nothing says otherwise (an unknown or unseen file); a profile
 * there is a profile, whose executable its pipeline finds (gperftools:
 * from the profile's mappings; gmon.out: a.out). The profiles' format is
 * --input-format's, else the first recognised file's, else gmon.out's (a
 * BSD gmon.out has no magic number). Without --input-format, every file
 * must then be of that format: a profile of another format, an executable
 * among the profiles, a compressed file for a reader of plain ones, an
 * unknown file (except for gmon.out, whose reader judges those as gprof
 * does) stop the run with a message that says why; --input-format leaves
 * the files to the reader. The options are checked against the format
 * (the table says which options and --format outputs each one has), and
 * its pipeline runs.
 *
 * --diff's base is looked at the same way when the pipeline asks for it
 * (o->load_base): it is read by the pipeline of its own format, which
 * must measure what the profile's measures.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/symbolize.h"

/* In the order the probes are tried: one line per format. */
static const struct sp_cli_format *const formats[] = {
	&sp_cmd_gmon_format,   /* cmd-gmon.c: the fallback, first as gprof's */
	&sp_cmd_gperf_format,  /* cmd-gperf.c */
	&sp_cmd_igprof_format, /* cmd-igprof.c */
	&sp_cmd_aprof_format,  /* cmd-aprof.c */
	&sp_cmd_pprof_format,  /* cmd-pprof.c */
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

enum arg_kind { ARG_UNSEEN = 0, ARG_UNKNOWN, ARG_PROFILE, ARG_OBJECT };

/* What one file argument is. */
struct arg {
	const char *path;
	enum arg_kind kind;
	const struct sp_cli_format *fmt; /* ARG_PROFILE */
	enum sp_fmt_compression compression;
	int empty; /* a regular file of 0 bytes */
};

static const char *article(const char *noun)
{
	return noun[0] && strchr("aeiouAEIOU", noun[0]) ? "an" : "a";
}

enum word { WORD_NAME, WORD_NOUN, WORD_PLURAL };

/* The formats `keep` takes, as "a, b or c" (`last`: " or ", " and "). */
static void list_formats(struct sp_buf *b, int (*keep)(const struct sp_cli_format *, unsigned),
			 unsigned arg, enum word w, const char *last)
{
	size_t i, n = 0, k = 0;

	for (i = 0; i < NFORMATS; i++)
		n += keep(formats[i], arg) != 0;
	for (i = 0; i < NFORMATS; i++) {
		const struct sp_cli_format *f = formats[i];

		if (!keep(f, arg))
			continue;
		if (k++)
			sp_buf_addstr(b, k == n ? last : ", ");
		sp_buf_addstr(b, w == WORD_NAME ? f->name : w == WORD_NOUN ? f->noun : f->plural);
	}
}

static int any_format(const struct sp_cli_format *f, unsigned arg)
{
	(void)f;
	(void)arg;
	return 1;
}

static int readable(const struct sp_cli_format *f, unsigned arg)
{
	(void)arg;
	return f->run != NULL;
}

static int writes(const struct sp_cli_format *f, unsigned out)
{
	return f->run && (f->outputs & SP_CLI_OUT(out));
}

int sp_cli_format_parse(const char *name, const struct sp_cli_format **f)
{
	struct sp_buf names = SP_BUF_INIT;
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (formats[i]->run && !strcmp(name, formats[i]->name)) {
			*f = formats[i];
			return 0;
		}
	list_formats(&names, readable, 0, WORD_NAME, " or ");
	sp_cli_error("unknown input format '%s' (try %s)", name, names.buf);
	sp_buf_release(&names);
	return -1;
}

/* ---- looking at a file ---- */

/* What `path` is: 0, or -1 after a message when its compressed data is
 * corrupt (nothing could read it). */
static int look(struct arg *a, const char *path)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_fmt_head h;
	struct stat st;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->path = path;
	if (!strcmp(path, "-") || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	a->empty = st.st_size == 0;
	if (sp_fmt_head_read(&h, path, &err) < 0) {
		if (err.code == SP_E_OPEN || err.code == SP_E_IO)
			return 0;
		sp_cli_error("%s", err.msg);
		return -1;
	}
	a->kind = ARG_UNKNOWN;
	a->compression = h.compression;
	for (i = 0; i < NFORMATS; i++) {
		if (formats[i]->probe(h.data, h.size)) {
			a->kind = ARG_PROFILE;
			a->fmt = formats[i];
			return 0;
		}
	}
	if (h.compression == SP_FMT_PLAIN && sp_image_is_object(path))
		a->kind = ARG_OBJECT;
	return 0;
}

/* The message for a file nothing recognises, which might have been an
 * executable too (`or_object`); `verb`: "read", "compare with". Returns 1
 * (the exit status). */
static int unrecognised(const struct arg *a, const char *verb, int or_object)
{
	const char *z = sp_fmt_compression_name(a->compression);
	struct sp_buf b = SP_BUF_INIT;

	list_formats(&b, any_format, 0, WORD_NOUN, " and ");
	if (z)
		sp_cli_error("cannot %s '%s': %s-compressed, but what it holds is not a profile "
			     "symprof knows (tried %s)",
			     verb, a->path, z, b.buf);
	else if (or_object)
		sp_cli_error("cannot %s '%s': not an executable or a profile symprof knows (tried "
			     "ELF, PE and other object files libbfd reads, %s)",
			     verb, a->path, b.buf);
	else
		sp_cli_error("cannot %s '%s': not a profile symprof knows (tried %s)", verb,
			     a->path, b.buf);
	sp_buf_release(&b);
	return 1;
}

/* The message for a profile whose format has no reader yet; 1. */
static int unread(const struct arg *a, const char *verb)
{
	const char *z = sp_fmt_compression_name(a->compression);

	sp_cli_error("cannot %s '%s': it is %s %s%s%s%s, which symprof cannot read yet", verb,
		     a->path, article(a->fmt->noun), a->fmt->noun, z ? " (" : "", z ? z : "",
		     z ? "-compressed)" : "");
	return 1;
}

/* The message for a compressed file whose reader takes plain ones; 1. */
static int compressed(const struct arg *a, const char *verb)
{
	sp_cli_error("cannot %s '%s': it is %s %s-compressed %s (decompress it first)", verb,
		     a->path, article(sp_fmt_compression_name(a->compression)),
		     sp_fmt_compression_name(a->compression), a->fmt->noun);
	return 1;
}

/* ---- the files of a run ---- */

/* The file arguments: the executable's place, then the profiles named. */
static struct arg *look_all(const struct sp_opts *o, size_t *n)
{
	size_t i, k = 0, nprof = o->image_given && o->profiles_defaulted ? 0 : o->nprofiles;
	struct arg *v = sp_xcalloc(nprof + 2, sizeof(*v));
	int bad = 0;

	if (o->image_given)
		bad |= look(&v[k++], o->image);
	for (i = 0; i < nprof; i++)
		bad |= look(&v[k++], o->profiles[i]);
	*n = k;
	if (bad) {
		free(v);
		return NULL;
	}
	return v;
}

/*
 * --input-format's, else the first recognised file's, else the fallback
 * (gmon.out: a BSD file has no magic number) if it writes the output asked
 * for, else the first format that does (*by_output set): --format=pprof
 * with a truncated or damaged gperftools profile, which its reader, not a
 * usage error, then describes.
 */
static const struct sp_cli_format *choose(const struct sp_opts *o, const struct arg *v, size_t n,
					  int *by_output)
{
	const struct sp_cli_format *fallback;
	size_t i;

	*by_output = 0;
	if (o->input_format)
		return o->input_format;
	for (i = 0; i < n; i++)
		if (v[i].kind == ARG_PROFILE)
			return v[i].fmt;
	for (i = 0; i < NFORMATS && !formats[i]->fallback; i++)
		;
	fallback = formats[i < NFORMATS ? i : 0];
	if (writes(fallback, o->out_format))
		return fallback;
	for (i = 0; i < NFORMATS; i++)
		if (writes(formats[i], o->out_format)) {
			*by_output = 1;
			return formats[i];
		}
	return fallback;
}

/* The file in the executable's place becomes the first profile. */
static void image_to_profiles(struct sp_opts *o)
{
	if (o->profiles_defaulted)
		o->nprofiles = 0;
	memmove(o->profiles + 1, o->profiles, o->nprofiles * sizeof(*o->profiles));
	o->profiles[0] = o->image;
	o->nprofiles++;
	o->profiles_defaulted = 0;
	o->image = "a.out";
	o->image_given = 0;
}

/*
 * Whether the first file is the executable (gprof's rule) or a profile:
 * an executable stays one, a profile becomes one, anything else stays
 * where gprof's rule puts it for formats with an executable. Returns 0,
 * or 1 after a message (an executable for a format without one).
 */
static int assign_image(struct sp_opts *o, const struct arg *first, const struct sp_cli_format *fmt,
			int by_output)
{
	if (!o->image_given)
		return 0;
	if (first->kind == ARG_OBJECT && !fmt->image) {
		sp_cli_error("cannot use '%s': it is an executable, and %s are read without one",
			     first->path, fmt->plural);
		return 1;
	}
	/* a lone file when the output chose the format: the profile */
	if (first->kind == ARG_PROFILE || (first->kind != ARG_OBJECT && !fmt->image) ||
	    (first->kind != ARG_OBJECT && by_output && o->profiles_defaulted))
		image_to_profiles(o);
	return 0;
}

/* What the option messages name among the profiles (after
 * assign_image()): the first file of format fmt, else the first one
 * nothing recognised (read as fmt, the fallback), else the first one not
 * looked at, else a lone argument nothing recognises; NULL for gmon.out
 * by default. */
static const struct arg *named_file(const struct sp_opts *o, const struct arg *v, size_t n,
				    const struct sp_cli_format *fmt)
{
	size_t i, from = o->image_given ? 1 : 0;

	for (i = from; i < n; i++)
		if (v[i].kind == ARG_PROFILE && v[i].fmt == fmt)
			return &v[i];
	for (i = from; i < n; i++)
		if (v[i].kind == ARG_UNKNOWN || v[i].kind == ARG_UNSEEN)
			return &v[i];
	/* a lone file nothing recognises: what the user named */
	if (o->image_given && o->profiles_defaulted && n && v[0].kind == ARG_UNKNOWN)
		return &v[0];
	return NULL;
}

/* "'file' is a gmon profile", or that it is not one when nothing
 * recognised it (fmt is the fallback). */
static void describe(struct sp_buf *b, const struct arg *a, const struct sp_opts *o,
		     const struct sp_cli_format *fmt)
{
	if (!a) {
		sp_buf_addf(b, "'%s' is %s %s", o->profiles[0], article(fmt->noun), fmt->noun);
		return;
	}
	sp_buf_addf(b, "'%s' ", a->path);
	if (a->kind == ARG_PROFILE)
		sp_buf_addf(b, "is %s %s", article(fmt->noun), fmt->noun);
	else if (a->kind == ARG_UNSEEN)
		sp_buf_addstr(b, "is not a file symprof can read");
	else if (a->empty)
		sp_buf_addstr(b, "is an empty file");
	else
		sp_buf_addstr(b, "is not one of them");
}

/* Options of other formats, an output the format does not write, and the
 * format's own rules: 0, or the exit status after a message. `named` is
 * the file the messages name (named_file()). */
static int check_options(const struct sp_opts *o, const struct sp_cli_format *fmt,
			 const struct arg *named)
{
	struct sp_buf what = SP_BUF_INIT;
	const char *opt;
	size_t i;
	int rc = 0;

	describe(&what, named, o, fmt);
	for (i = 0; i < NFORMATS && !rc; i++) {
		if (formats[i] == fmt || !formats[i]->own_option ||
		    !(opt = formats[i]->own_option(o)))
			continue;
		sp_cli_error("%s is an option for %s, and %s", opt, formats[i]->plural, what.buf);
		rc = 2;
	}
	if (!rc && !writes(fmt, o->out_format)) {
		struct sp_buf b = SP_BUF_INIT;

		list_formats(&b, writes, o->out_format, WORD_PLURAL, " or ");
		sp_cli_error("--format=%s needs %s, and %s", sp_cli_out_format_name(o->out_format),
			     b.buf, what.buf);
		sp_buf_release(&b);
		rc = 2;
	}
	sp_buf_release(&what);
	if (rc)
		return rc;
	return fmt->check_options ? fmt->check_options(o) : 0;
}

/* The first recognised file of format fmt, or NULL. */
static const struct arg *first_of(const struct arg *v, size_t n, const struct sp_cli_format *fmt)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].kind == ARG_PROFILE && v[i].fmt == fmt)
			return &v[i];
	return NULL;
}

/* A profile of the run: 0 if its reader may have it, else 1 after a
 * message saying why not. by_output: the format is the output's (choose()),
 * whose reader says what is wrong with a file nothing recognised. */
static int check_profile(const struct arg *a, const struct arg *v, size_t n,
			 const struct sp_cli_format *fmt, int by_output)
{
	const struct arg *other;

	switch (a->kind) {
	case ARG_OBJECT:
		sp_cli_error("cannot read '%s': it is an executable, not %s %s%s", a->path,
			     article(fmt->noun), fmt->noun,
			     fmt->image ? " (the executable comes first)" : "");
		return 1;
	case ARG_UNKNOWN:
		/* gprof's rule (BSD gmon.out has no magic), or the output's
		 * format, whose reader says what the file is not */
		if ((fmt->fallback || by_output) && a->compression == SP_FMT_PLAIN)
			return 0;
		return unrecognised(a, "read", 0);
	case ARG_PROFILE:
		if (a->fmt != fmt) {
			other = first_of(v, n, fmt);
			sp_cli_error("cannot read '%s': it is %s %s, and '%s' is %s %s (one format "
				     "at a time)",
				     a->path, article(a->fmt->noun), a->fmt->noun,
				     other ? other->path : "", article(fmt->noun), fmt->noun);
			return 1;
		}
		if (a->compression != SP_FMT_PLAIN && !fmt->compressed)
			return compressed(a, "read");
		return 0;
	default:
		return 0; /* not looked at: the reader says what it is */
	}
}

/* Every file against the run's format (the executable's place first). */
static int check_files(const struct sp_opts *o, const struct arg *v, size_t n,
		       const struct sp_cli_format *fmt, int by_output)
{
	size_t i = 0;

	if (o->image_given) {
		if (v[0].kind == ARG_UNKNOWN && o->profiles_defaulted)
			return unrecognised(&v[0], "read", 1);
		if (v[0].kind == ARG_UNKNOWN) {
			sp_cli_error("cannot read '%s': not in executable format", v[0].path);
			return 1;
		}
		i = 1;
	}
	for (; i < n; i++)
		if (check_profile(&v[i], v, n, fmt, by_output))
			return 1;
	return 0;
}

/* ---- --diff's base ---- */

/* Whether the base measures what the profile measures (once loaded). */
static int comparable(const struct sp_cli_model *m, const struct sp_cli_model *base,
		      const char *path)
{
	if (strcmp(m->meta.metric, base->meta.metric) || strcmp(m->meta.unit, base->meta.unit)) {
		sp_cli_error("cannot compare with '%s': it measures %s in %s and the profile %s "
			     "in %s",
			     path, base->meta.metric, base->meta.unit, m->meta.metric,
			     m->meta.unit);
		return 0;
	}
	return 1;
}

/* What the base is, with the reader it needs: 0, or 1 after a message. */
static int base_format(const struct arg *a, const struct sp_cli_format *own,
		       const struct sp_cli_format **fmt)
{
	const char *note;

	*fmt = a->kind == ARG_PROFILE ? a->fmt : own; /* else the profile's reader says why */
	if (a->kind == ARG_OBJECT) {
		sp_cli_error("cannot compare with '%s': it is an executable, not a profile",
			     a->path);
		return 1;
	}
	if (a->kind == ARG_UNKNOWN && !(own->fallback && a->compression == SP_FMT_PLAIN))
		return unrecognised(a, "compare with", 0);
	if (!(*fmt)->model)
		return unread(a, "compare with");
	if (a->compression != SP_FMT_PLAIN && !(*fmt)->compressed)
		return compressed(a, "compare with");
	if (!strcmp((*fmt)->measures, own->measures))
		return 0;
	note = (*fmt)->mismatch_note ? (*fmt)->mismatch_note : own->mismatch_note;
	sp_cli_error("cannot compare with '%s': it is %s %s and the profile %s %s%s%s%s", a->path,
		     article((*fmt)->noun), (*fmt)->noun, article(own->noun), own->noun,
		     note ? " (" : "", note ? note : "", note ? ")" : "");
	return 1;
}

/* o->load_base: the base of --diff through the pipeline of its format. */
static int load_base(struct sp_opts *o, const struct sp_cli_model *m, struct sp_cli_model *base)
{
	const struct sp_cli_format *fmt;
	struct arg a;
	int rc;

	memset(base, 0, sizeof(*base));
	if (look(&a, o->diff) < 0 || base_format(&a, o->input_format, &fmt))
		return 1;
	rc = fmt->model(o, o->diff, base);
	return rc ? rc : comparable(m, base, o->diff) ? 0 : 1;
}

/* ---- the run ---- */

int sp_cli_run(struct sp_opts *o)
{
	const struct sp_cli_format *fmt;
	int forced = o->input_format != NULL, by_output, rc;
	const struct arg *pending;
	struct arg *v;
	size_t n;

	if (!(v = look_all(o, &n)))
		return 1;
	fmt = choose(o, v, n, &by_output);
	if (!fmt->run && (pending = first_of(v, n, fmt)))
		rc = unread(pending, "read");
	else
		rc = assign_image(o, &v[0], fmt, by_output);
	if (!rc)
		rc = check_options(o, fmt, named_file(o, v, n, fmt));
	if (!rc && !forced)
		rc = check_files(o, v, n, fmt, by_output);
	free(v);
	if (rc)
		return rc;
	o->input_format = fmt;
	o->load_base = load_base;
	return fmt->run(o);
}
