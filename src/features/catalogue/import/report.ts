// What an import says about each file: records added (created), updated, unchanged and failed,
// and every problem with its file and line. A refused record fails alone; a file that cannot be
// read as a whole (not JSON, a wrong header, not a catalogue) is refused and changes nothing.

export interface ImportIssue {
  file: string
  /** 1-based line of the record (or of the problem), when known */
  line: number | null
  message: string
}

/** Issues kept per kind and file; the rest are only counted (a file of a million bad records stays small). */
export const MAX_ISSUES = 1000

export interface FileReport {
  file: string
  /** the path given to the import this file came from (a folder of skills holds many files) */
  source: string
  kind: 'json' | 'csv' | 'skill' | 'unknown'
  created: number
  updated: number
  unchanged: number
  /** records refused (each has at least one error) */
  failed: number
  warnings: ImportIssue[]
  errors: ImportIssue[]
  /** warnings and errors past MAX_ISSUES, counted only */
  moreWarnings: number
  moreErrors: number
  /** the whole file was refused: nothing of it is written */
  refused: boolean
  /** the file's size in bytes */
  bytes: number
}

/** How far an import of one file is. */
export interface Progress {
  /** records read */
  records: number
  bytes: number
  totalBytes: number
}

export type OnProgress = (progress: Progress) => void

export function newReport(file: string, kind: FileReport['kind'], source = file): FileReport {
  return {
    file,
    source,
    kind,
    created: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    warnings: [],
    errors: [],
    moreWarnings: 0,
    moreErrors: 0,
    refused: false,
    bytes: 0,
  }
}

export function addError(report: FileReport, line: number | null, message: string): void {
  if (report.errors.length < MAX_ISSUES) report.errors.push({ file: report.file, line, message })
  else report.moreErrors++
}

export function addWarning(report: FileReport, line: number | null, message: string): void {
  if (report.warnings.length < MAX_ISSUES) report.warnings.push({ file: report.file, line, message })
  else report.moreWarnings++
}

/**
 * The whole file is refused: its transaction rolled back, so its counts go, and so do the problems
 * of its records (which may be the refusal's echo): one error says why.
 */
export function refuse(report: FileReport, line: number | null, message: string): FileReport {
  report.created = report.updated = report.unchanged = report.failed = 0
  report.errors = []
  report.warnings = []
  report.moreErrors = report.moreWarnings = 0
  report.refused = true
  addError(report, line, message)
  return report
}

export const hasErrors = (report: FileReport) => report.errors.length > 0 || report.moreErrors > 0

export function formatIssue(kind: 'error' | 'warning', issue: ImportIssue): string {
  return `${issue.file}${issue.line !== null ? `:${issue.line}` : ''}: ${kind}: ${issue.message}`
}
