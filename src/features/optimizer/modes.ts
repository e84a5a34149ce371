// The optimization modes offered by every engine. The list is the single source of truth:
// the id union, validation and the client-facing labels all derive from it.

export const OPTIMIZATION_MODES = [
  {
    id: 'enhance',
    label: 'Enhance & Clarify',
    description:
      'Rewrites the prompt so the goal, audience, constraints and expected output are explicit, marking anything missing with a placeholder.',
  },
  {
    id: 'structured',
    label: 'Structured Format',
    description:
      'Organises the prompt into Role, Context, Task, Constraints and Output format sections with an expert role inferred from the domain.',
  },
  {
    id: 'chain-of-thought',
    label: 'Chain of Thought',
    description:
      'Adds a step-by-step reasoning scaffold (understand, list knowns and unknowns, plan, work, verify) and keeps the reasoning apart from the final answer.',
  },
  {
    id: 'few-shot',
    label: 'Few-Shot Examples',
    description:
      'Adds example input/output slots tailored to the kind of task, followed by a slot for the real input, so the model can copy the pattern.',
  },
  {
    id: 'model-specific',
    label: 'Model-Specific',
    description:
      "Formats the prompt with the conventions of the target model family: XML tags for Claude, system/user messages for GPT, headings for Gemini, chat-template markers for Llama.",
  },
] as const

export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number]['id']

export const MODE_IDS: readonly OptimizationMode[] = OPTIMIZATION_MODES.map((mode) => mode.id)

export function isOptimizationMode(value: string): value is OptimizationMode {
  return (MODE_IDS as readonly string[]).includes(value)
}
