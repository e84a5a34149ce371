// `promptlib import PATH…`: picks the importer by what each path is (a .json file, a .csv file,
// a skill folder or a folder of skill folders) and reports on every file.
import { existsSync } from 'node:fs'
import { extname } from 'node:path'
import { importPromptsCsv } from './csv'
import { importCatalogueText } from './json'
import { newReport, type FileReport, type Progress } from './report'
import { importSkillFolder, isDirectory, skillFolders } from './skills-folder'
import type { ImportTarget } from './target'
import { readUtf8File } from './utf8'

export interface ImportOptions {
  category?: string
  /** called with the file being imported and its progress */
  onProgress?: (file: string, done: number, total: number) => void
}

export async function importPaths(target: ImportTarget, paths: string[], opts: ImportOptions = {}): Promise<FileReport[]> {
  const reports: FileReport[] = []
  for (const path of paths) {
    const progress: Progress = (done, total) => opts.onProgress?.(path, done, total)
    if (!existsSync(path)) {
      const report = newReport(path, 'unknown')
      report.errors.push({ file: path, line: null, message: 'no such file or folder' })
      reports.push(report)
      continue
    }
    if (isDirectory(path)) {
      const folders = skillFolders(path)
      if (folders.length === 0) {
        const report = newReport(path, 'skill')
        report.errors.push({ file: path, line: null, message: 'no SKILL.md in this folder or in its subfolders' })
        reports.push(report)
      }
      for (const [i, folder] of folders.entries()) {
        reports.push(await importSkillFolder(target, folder, { category: opts.category }))
        progress(i + 1, folders.length)
      }
      continue
    }
    const extension = extname(path).toLowerCase()
    if (extension !== '.json' && extension !== '.csv') {
      const report = newReport(path, 'unknown')
      report.errors.push({ file: path, line: null, message: 'unsupported file type: expected .json, .csv or a folder of skills' })
      reports.push(report)
      continue
    }
    let text: string
    try {
      text = readUtf8File(path)
    } catch (error) {
      const report = newReport(path, extension === '.json' ? 'json' : 'csv')
      report.errors.push({ file: path, line: null, message: `cannot read: ${(error as Error).message}` })
      reports.push(report)
      continue
    }
    reports.push(
      extension === '.json'
        ? await importCatalogueText(target, text, { file: path, onProgress: progress })
        : await importPromptsCsv(target, text, { file: path, category: opts.category, onProgress: progress }),
    )
  }
  return reports
}
