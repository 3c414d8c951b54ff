/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The scripts and style sheets of the SVG and HTML outputs (private to
 * report/). They live as ordinary files in report/assets/ and are compiled
 * in as strings (assets/embed.cmake), so every output is self-contained.
 */
#ifndef SYMPROF_REPORT_ASSETS_H
#define SYMPROF_REPORT_ASSETS_H

extern const char sp_asset_flame_js[];
extern const char sp_asset_flame_css[];
extern const char sp_asset_report_js[];
extern const char sp_asset_report_css[];

#endif
