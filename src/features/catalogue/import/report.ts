// What an import says about each file: counts, warnings and errors with file and line.

export interface ImportIssue {
  file: string
  /** 1-based line of the record, when known */
  line: number | null
  message: string
}

export interface FileReport {
  file: string
  kind: 'json' | 'csv' | 'skill' | 'unknown'
  created: number
  updated: number
  unchanged: number
  warnings: ImportIssue[]
  errors: ImportIssue[]
}

export type Progress = (done: number, total: number) => void

export function newReport(file: string, kind: FileReport['kind']): FileReport {
  return { file, kind, created: 0, updated: 0, unchanged: 0, warnings: [], errors: [] }
}

export function count(report: FileReport, outcome: 'created' | 'updated' | 'unchanged'): void {
  report[outcome]++
}

export function formatIssue(kind: 'error' | 'warning', issue: ImportIssue): string {
  return `${issue.file}${issue.line !== null ? `:${issue.line}` : ''}: ${kind}: ${issue.message}`
}
