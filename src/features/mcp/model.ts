// The MCP tools' input and output schemas (contract section 12). Outputs are the REST responses'
// own schemas (the features' models, through their index.ts), so a tool answers exactly what the
// matching REST route answers; inputs mirror the REST query and body rules. They are TypeBox,
// that is JSON Schema: tools/list sends them as they are, and tools.ts checks arguments with them.
import { t } from 'elysia'
import { Int, MAX_OFFSET, strictObject, StringEnum } from '../../http/schemas'
import { CategoryViewSchema, SearchHitSchema, VariableSchema } from '../catalogue'
import { AddedSchema, FavoriteSchema } from '../favorites'
import { MODE_IDS, type OptimizationMode, PROMPT_MAX_CHARS, TARGET_MODEL_MAX_CHARS } from '../optimizer'
import { SkillHitSchema, SkillSchema } from '../skills'

/** Checked as a pattern, not a `format`: formats are a process-wide registry the OpenAPI plugin rewires. */
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
const Uuid = (description: string) => t.String({ pattern: UUID_PATTERN, description })
const Query = t.String({
  minLength: 1,
  maxLength: 10_000,
  description: 'the search text: every word must match; the last word also matches as the start of a longer word',
})
const Limit = (description: string) => t.Optional(Int({ minimum: 1, maximum: 100, description }))

export const SearchPromptsInput = strictObject({
  query: Query,
  category: t.Optional(
    t.String({ maxLength: 64, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description: 'only prompts of this category (an id from list_categories)' }),
  ),
  tag: t.Optional(t.String({ maxLength: 100, description: 'only prompts with this tag' })),
  limit: Limit('how many results, 1–100 (default 20)'),
})
export const SearchPromptsOutput = t.Object({ items: t.Array(SearchHitSchema), total: Int({ description: 'matches, counted up to 1,000' }) })

export const GetPromptInput = strictObject({
  id: Uuid('the prompt’s id (a UUID, as search_prompts returns it)'),
  arguments: t.Optional(
    t.Record(t.String({ maxLength: 200 }), t.String({ maxLength: 100_000 }), {
      description: 'values for the prompt’s variables, by name; a variable left out takes its default',
    }),
  ),
})
export const GetPromptOutput = t.Object({
  id: t.String({ format: 'uuid' }),
  title: t.String(),
  content: t.String({ description: 'the template, with its {{variables}}' }),
  variables: t.Array(VariableSchema),
  text: t.String({ description: 'the content with every variable filled in: the argument given, else its default' }),
})

export const ListCategoriesInput = strictObject({})
export const ListCategoriesOutput = t.Object({ items: t.Array(CategoryViewSchema) })

export const SearchSkillsInput = strictObject({ query: Query, limit: Limit('how many results, 1–100 (default 20)') })
export const SearchSkillsOutput = t.Object({ items: t.Array(SkillHitSchema), total: Int({ description: 'matches, counted up to 1,000' }) })

export const GetSkillInput = strictObject({ id: t.String({ minLength: 1, maxLength: 200, description: 'the skill’s id (its kebab-case name)' }) })
export const GetSkillOutput = SkillSchema

export const OptimizePromptInput = strictObject({
  prompt: t.String({ minLength: 1, maxLength: PROMPT_MAX_CHARS * 2, description: `the prompt to rewrite: 1–${PROMPT_MAX_CHARS} characters` }),
  mode: StringEnum(MODE_IDS as [OptimizationMode, ...OptimizationMode[]], {
    description:
      'enhance (clarify what the prompt implies), structured (Role/Context/Task/Constraints/Output sections), chain-of-thought, few-shot, or model-specific (with target_model)',
  }),
  target_model: t.Optional(
    t.String({ maxLength: TARGET_MODEL_MAX_CHARS * 2, description: 'for model-specific: the model the prompt is for, e.g. claude-sonnet-4, gpt-4o' }),
  ),
})
export const OptimizePromptOutput = t.Object({
  id: t.String({ description: 'the optimizer history entry' }),
  optimized_prompt: t.String(),
  remaining_today: t.Nullable(Int({ description: 'optimizations left today; null on unlimited tiers' })),
})

export const ListFavoritesInput = strictObject({
  limit: Limit('how many, 1–100 (default 20)'),
  offset: t.Optional(Int({ minimum: 0, maximum: MAX_OFFSET, description: 'how many to skip (default 0)' })),
})
export const ListFavoritesOutput = t.Object({ items: t.Array(FavoriteSchema), total: Int() })

export const FavoriteInput = strictObject({ prompt_id: Uuid('the prompt’s id (a UUID)') })
export const AddFavoriteOutput = AddedSchema
export const RemoveFavoriteOutput = t.Object({ removed: t.Literal(true) })
