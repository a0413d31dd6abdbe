@cap:search
Feature: Finding entities by filter, as DataHub's SDK and CLI search
  DataHub's SDK finds entities with GraphQL's scrollAcrossEntities
  (DataHubGraph.get_urns_by_filter, which `datahub delete --platform`, `--entity-type`,
  `--env` and `--query` use): entity types, a query ("*" for every entity), filters as a
  list of conjunctions ("orFilters", each {"and": [{"field", "condition", "values",
  "negated"}]}) on fields such as platform.keyword, origin and removed, a page size
  ("count"), and the scroll id of the page before, until a page names no next one. The SDK
  leaves soft-deleted entities out by a negated filter on removed unless asked for them, as
  `datahub delete --hard` asks.

  Any user signed in may search. DataHub's search index lags behind writes by a few
  seconds: a must-level scenario waits until what it wrote is found, or what it deleted
  is no longer found. DataHub shows every entity found to anyone; the reference shows no
  one an entity they may not read, which is recommended.

  Background:
    Given Ann holds a personal access token

  @id:search-01 @must @smoke
  Scenario Outline: Searching datasets by platform through the <tier> finds those of the platform and no others
    Given the administrator has written three new datasets on a platform of the scenario's own and one on another
    When Ann searches datasets on the scenario's platform as DataHub's SDK does, through the <tier>
    Then the search finds the three datasets of the platform, and not the other

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:search-02 @must @core
  Scenario: Searching by environment finds the datasets of that origin only
    Given the administrator has written a new dataset in PROD and one in DEV on a platform of the scenario's own
    When Ann searches datasets in DEV on the scenario's platform as DataHub's SDK does
    Then the search finds the DEV dataset, and not the PROD one

  @id:search-03 @must @core
  Scenario: Searching with a query finds the entities whose name holds its word
    Given the administrator has written three new datasets on a platform of the scenario's own and one on another
    And the administrator has named the first dataset with a word of the scenario's own
    When Ann searches datasets for that word as DataHub's SDK does
    Then the search finds the first dataset alone

  @id:search-04 @must @core
  Scenario: Searching one entity type finds no entity of another
    Given a tag exists
    And the administrator has written three new datasets on a platform of the scenario's own and one on another
    When Ann searches tags for the tag's name as DataHub's SDK does
    Then the search finds the tag, and no dataset

  @id:search-05 @must @core
  Scenario: A search read a page at a time finds every match once, and its last page names no next one
    Given the administrator has written five new datasets on a platform of the scenario's own
    When Ann searches datasets on the scenario's platform two at a time as DataHub's SDK pages
    Then the pages find the five datasets, each once, and the last page names no next page

  @id:search-06 @must @core
  Scenario: A soft-deleted dataset is found only by a search that asks for soft-deleted entities
    Given the administrator has written three new datasets on a platform of the scenario's own and one on another
    And the administrator has soft-deleted the first dataset
    When Ann searches datasets on the scenario's platform as DataHub's SDK does
    Then the search finds the other two datasets of the platform, and not the soft-deleted one
    And a search that asks for soft-deleted entities, as `datahub delete --hard` does, finds all three

  @id:search-07 @must @core
  Scenario: A dataset deleted for good is no longer found
    Given the administrator has written three new datasets on a platform of the scenario's own and one on another
    And a search finds the datasets of the scenario's platform
    And the administrator has deleted the first dataset for good
    When Ann searches datasets on the scenario's platform as DataHub's SDK does
    Then the search finds the other two datasets of the platform, and not the deleted one

  @id:search-08 @must @core
  Scenario Outline: A search without a token through the <tier> is refused
    When someone without a token searches datasets through the <tier>
    Then the request is refused as unauthenticated

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  # Every user may read entities through a policy the service starts with. This
  # scenario switches such policies off while it runs, so it runs alone.
  @id:search-09 @should @core @exclusive
  Scenario: Someone who may read one dataset of a platform finds it, and not the others
    Given the administrator has written three new datasets on a platform of the scenario's own and one on another
    And no policy lets every user read entities
    And Ann is granted VIEW_ENTITY_PAGE on the first dataset only
    When Ann searches datasets on the scenario's platform as DataHub's SDK does
    Then the search finds the first dataset alone

  @id:search-10 @should @core
  Scenario Outline: A search <flaw> is refused as a bad request
    When Ann searches datasets <flaw>
    Then the answer is a GraphQL error saying the request is bad

    Examples:
      | flaw                                    |
      | with a scroll id the service never gave |
      | with a negative count                   |
      | with a filter condition DataHub lacks   |
