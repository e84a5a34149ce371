// `promptlib import PATH…`: picks the importer by what each path is (a .json file, a .csv file,
// a skill folder or a folder of skill folders) and reports on every file.
import { existsSync } from 'node:fs'
import { extname } from 'node:path'
import { importPromptsCsv } from './csv'
import type { FileImportOptions } from './file'
import { importCatalogueFile } from './json'
import { addError, type FileReport, newReport, type Progress } from './report'
import { importSkillFolder, isDirectory, skillFolders } from './skills-folder'
import type { ImportTarget } from './target'
import type { Tx } from '../../../db/storage'

export interface ImportOptions {
  category?: string
  /** validate and count everything, then roll back: nothing is written */
  dryRun?: boolean
  /** run every file inside this transaction (each in a savepoint of its own) instead of one of its own */
  tx?: Tx
  /** how far the file being imported is (a folder of skills: files done of all) */
  onProgress?: (file: string, progress: Progress) => void
}

/** A report for a path that could not be imported at all. */
const unreadable = (path: string, kind: FileReport['kind'], message: string) => {
  const report = newReport(path, kind)
  report.refused = true
  addError(report, null, message)
  return report
}

export async function importPaths(target: ImportTarget, paths: string[], opts: ImportOptions = {}): Promise<FileReport[]> {
  const reports: FileReport[] = []
  for (const path of paths) {
    const common: FileImportOptions & { file: string; source: string } = {
      file: path,
      source: path,
      dryRun: opts.dryRun,
      tx: opts.tx,
      onProgress: (progress) => opts.onProgress?.(path, progress),
    }
    if (!existsSync(path)) {
      reports.push(unreadable(path, 'unknown', 'no such file or folder'))
      continue
    }
    if (isDirectory(path)) {
      let folders: string[]
      try {
        folders = skillFolders(path)
      } catch (error) {
        // An unreadable folder is this path's error, not the end of the import (the next paths still run).
        reports.push(unreadable(path, 'skill', `cannot read: ${(error as Error).message}`))
        continue
      }
      if (folders.length === 0) reports.push(unreadable(path, 'skill', 'no SKILL.md in this folder or in its subfolders'))
      const namesSeen = new Map<string, string>()
      for (const [i, folder] of folders.entries()) {
        reports.push(await importSkillFolder(target, folder, { category: opts.category, dryRun: opts.dryRun, tx: opts.tx, source: path, namesSeen }))
        opts.onProgress?.(path, { records: i + 1, bytes: i + 1, totalBytes: folders.length })
      }
      continue
    }
    const extension = extname(path).toLowerCase()
    if (extension === '.json') reports.push(await importCatalogueFile(target, path, common))
    else if (extension === '.csv') reports.push(await importPromptsCsv(target, path, { ...common, category: opts.category }))
    else reports.push(unreadable(path, 'unknown', 'unsupported file type: expected .json, .csv or a folder of skills'))
  }
  return reports
}
